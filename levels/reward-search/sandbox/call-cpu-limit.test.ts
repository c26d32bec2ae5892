import { describe, expect, it } from "vitest";
import { CallCpuLimit } from "./call-cpu-limit.ts";

/** Clocks the test moves by hand: wall in ms, the thread's CPU in µs, and how often the CPU clock was read. */
const fakeClocks = () => {
  const c = { wall: 0, cpuMicros: 0, cpuReads: 0 };
  return {
    c,
    clocks: {
      wallMs: () => c.wall,
      threadCpuMicros: () => {
        c.cpuReads++;
        return c.cpuMicros;
      },
    },
  };
};

describe("a sandbox call's CPU limit", () => {
  it("does not stop a call that waited for a core (or was paused) before its first poll", () => {
    const { c, clocks } = fakeClocks();
    const limit = new CallCpuLimit(clocks);
    limit.start(100);
    c.wall = 250; // descheduled or SIGSTOPped before QuickJS first polled: wall time, no CPU
    c.cpuMicros = 1_000;
    expect(limit.exceeded()).toBe(false);
    c.wall = 300;
    c.cpuMicros = 31_000; // 30 ms of its own CPU since the first poll
    expect(limit.exceeded()).toBe(false);
  });

  it("stops a call once its own CPU since the first poll passes the limit", () => {
    const { c, clocks } = fakeClocks();
    const limit = new CallCpuLimit(clocks);
    limit.start(100);
    c.cpuMicros = 5_000;
    expect(limit.exceeded()).toBe(false);
    c.wall = 104;
    c.cpuMicros = 104_000; // 99 ms since the first poll
    expect(limit.exceeded()).toBe(false);
    c.wall = 107;
    c.cpuMicros = 107_000; // 102 ms
    expect(limit.exceeded()).toBe(true);
  });

  it("reads the CPU clock a few times, not at every poll, while a waiting call's wall time runs past the limit", () => {
    const { c, clocks } = fakeClocks();
    const limit = new CallCpuLimit(clocks);
    limit.start(100);
    expect(limit.exceeded()).toBe(false);
    // The thread gets a tenth of a core: 0.1 ms of CPU per ms of wall, polled every ms for 300 ms.
    for (let t = 1; t <= 300; t++) {
      c.wall = t;
      c.cpuMicros = t * 100;
      expect(limit.exceeded()).toBe(false);
    }
    expect(c.cpuReads).toBeLessThanOrEqual(5);
    // And once it has the core again, it is stopped as soon as its own CPU passes the limit.
    for (let t = 301; t < 1000 && !limit.exceeded(); t++) {
      c.wall = t;
      c.cpuMicros = 30_000 + (t - 300) * 1000;
    }
    expect(c.cpuMicros / 1000).toBeGreaterThan(100);
    expect(c.cpuMicros / 1000).toBeLessThanOrEqual(102);
  });

  it("reads the CPU clock once while the call's wall time is within the limit, and not at all outside a call", () => {
    const { c, clocks } = fakeClocks();
    const limit = new CallCpuLimit(clocks);
    expect(limit.exceeded()).toBe(false);
    expect(c.cpuReads).toBe(0);
    limit.start(100);
    for (let t = 0; t < 100; t += 5) {
      c.wall = t;
      expect(limit.exceeded()).toBe(false);
    }
    expect(c.cpuReads).toBe(1);
    limit.stop();
    c.wall = 10_000;
    c.cpuMicros = 10_000_000;
    expect(limit.exceeded()).toBe(false);
  });
});
