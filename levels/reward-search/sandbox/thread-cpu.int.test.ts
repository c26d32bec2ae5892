import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { threadCpuMicros } from "./thread-cpu.ts";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const contendedCall = fileURLToPath(new URL("./fixtures/contended-call.ts", import.meta.url));

/** Waits for the go flag (index 1), spins until the process has used 300 ms more CPU, then raises index 0. */
const burnProcessCpu = `
  const { parentPort, workerData } = require("node:worker_threads");
  const flags = new Int32Array(workerData);
  const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
  parentPort.postMessage("ready");
  Atomics.wait(flags, 1, 0);
  const start = cpuMs();
  while (cpuMs() - start < 300) {}
  Atomics.store(flags, 0, 1);
  Atomics.notify(flags, 0);
`;

/** The first CPU this process may run on (a container may not allow CPU 0), from /proc/self/status. */
const firstAllowedCpu = (): string => {
  const list = /^Cpus_allowed_list:\s*(\d+)/m.exec(readFileSync("/proc/self/status", "utf8"));
  return list?.[1] ?? "0";
};

describe("thread CPU clock", () => {
  it("advances while this thread spins", () => {
    const c0 = threadCpuMicros();
    const t0 = performance.now();
    while (performance.now() - t0 < 50) {}
    expect(threadCpuMicros() - c0).toBeGreaterThan(0);
  });

  // Off Linux, Node < 23.9 has no per-thread clock and the sandbox falls back to the process's (thread-cpu.ts).
  it.skipIf(process.platform !== "linux")("counts only the calling thread: a sleeping thread's clock stands still while a worker burns CPU", async () => {
    const shared = new SharedArrayBuffer(8);
    const flags = new Int32Array(shared);
    const worker = new Worker(burnProcessCpu, { eval: true, workerData: shared });
    await new Promise((resolve) => worker.once("message", resolve));
    const thread0 = threadCpuMicros();
    const process0 = process.cpuUsage();
    Atomics.store(flags, 1, 1);
    Atomics.notify(flags, 1);
    expect(Atomics.wait(flags, 0, 0, 60_000)).not.toBe("timed-out");
    const threadMs = (threadCpuMicros() - thread0) / 1000;
    const used = process.cpuUsage(process0);
    const processMs = (used.user + used.system) / 1000;
    await new Promise((resolve) => worker.once("exit", resolve));
    expect(processMs).toBeGreaterThanOrEqual(250);
    expect(threadMs).toBeLessThan(processMs / 5);
  });
});

describe.skipIf(process.platform !== "linux")("reward sandbox: the CPU limit under contention (Linux: taskset)", () => {
  it("charges a call only its own thread's CPU: honest code on a core shared with 4 spinning threads passes, an endless loop is stopped", async () => {
    const r = await execa("taskset", ["-c", firstAllowedCpu(), process.execPath, "--import", "tsx", contendedCall], {
      cwd: repoRoot,
      reject: false,
      timeout: 90_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ honest: "ok", endless: "timeout" });
  });
});
