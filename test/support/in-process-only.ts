import { createRequire, syncBuiltinESMExports } from "node:module";
import { relative } from "node:path";
import { afterAll, expect } from "vitest";
import { IN_PROCESS_SERVERS } from "./test-tiers.ts";

/**
 * The fast tier's setup file (vitest.config.ts, project "fast"): a test there runs in-process, so one that starts a
 * child process or opens a server fails, naming what it started (CONTRIBUTING.md, "Tests"). The call still goes
 * through, and the file fails when it ends, so that code which catches the error cannot hide it. The scripted
 * OpenAI-compatible servers (IN_PROCESS_SERVERS) are the one exception.
 */
const PROCESS_STARTS = ["spawn", "spawnSync", "fork", "exec", "execSync", "execFile", "execFileSync"] as const;

interface Guard {
  started: string[];
}
const state = globalThis as { __hexaInProcessGuard?: Guard };

const install = (): Guard => {
  const guard: Guard = { started: [] };
  const require = createRequire(import.meta.url);
  const childProcess = require("node:child_process") as Record<(typeof PROCESS_STARTS)[number], (...a: unknown[]) => unknown>;
  for (const name of PROCESS_STARTS) {
    const start = childProcess[name];
    childProcess[name] = function (this: unknown, ...args: unknown[]) {
      guard.started.push(`a child process (${name} ${String(args[0])})`);
      return start.apply(this, args);
    };
  }
  syncBuiltinESMExports();
  const { Server } = require("node:net") as typeof import("node:net");
  const listen = Server.prototype.listen;
  Server.prototype.listen = function (this: import("node:net").Server, ...args: unknown[]) {
    const stack = new Error().stack ?? "";
    if (!IN_PROCESS_SERVERS.some((helper) => stack.includes(helper))) guard.started.push(`a server (listen ${JSON.stringify(args[0] ?? null)})`);
    return listen.apply(this, args as Parameters<typeof listen>);
  } as typeof listen;
  return guard;
};

// Node's built-in modules outlive a test file in its worker: patch them once, and read what this file started.
const guard = (state.__hexaInProcessGuard ??= install());
guard.started.length = 0;

afterAll(() => {
  const started = [...new Set(guard.started)];
  guard.started.length = 0;
  if (started.length > 0) {
    const file = relative(process.cwd(), expect.getState().testPath ?? "this test file");
    throw new Error(`${file} is in the fast tier but started ${started.join(", ")}: name it *.int.test.ts (CONTRIBUTING.md, "Tests")`);
  }
});
