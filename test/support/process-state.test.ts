import { tmpdir } from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import { processSnapshot } from "./process-state.ts";

describe("a process snapshot", () => {
  const cwd = process.cwd();
  const exitCode = process.exitCode;
  afterEach(() => {
    delete process.env.HEXA_TEST_LEFT;
    process.chdir(cwd);
    process.exitCode = exitCode;
    vi.useRealTimers();
  });

  it("names and puts back what a file left changed", () => {
    const restore = processSnapshot();
    const path = process.env.PATH;
    const onSignal = () => {};
    process.env.HEXA_TEST_LEFT = "1";
    delete process.env.PATH;
    process.chdir(tmpdir());
    process.exitCode = 3;
    process.on("SIGTERM", onSignal);
    vi.useFakeTimers();
    expect(restore()).toEqual([
      "process.env.PATH",
      "process.env.HEXA_TEST_LEFT",
      "1 SIGTERM listener(s)",
      `the working directory (${tmpdir()})`,
      "process.exitCode (3)",
      "fake timers",
    ]);
    expect([process.env.PATH, process.env.HEXA_TEST_LEFT, process.cwd(), process.exitCode, vi.isFakeTimers()]).toEqual([path, undefined, cwd, exitCode, false]);
    expect(process.listeners("SIGTERM")).not.toContain(onSignal);
  });

  it("names nothing when the file left the process as it found it", () => {
    const restore = processSnapshot();
    process.env.HEXA_TEST_LEFT = "1";
    delete process.env.HEXA_TEST_LEFT;
    expect(restore()).toEqual([]);
  });
});
