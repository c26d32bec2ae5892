import { relative } from "node:path";
import { afterAll, expect, vi } from "vitest";

/**
 * A setup file of the in-process tiers (vitest.config.ts): their test files share a worker process and its modules
 * one after another, so what one file leaves changed in the process would reach the files after it. Each file must
 * leave process.env, the working directory, process.exitCode, the signal listeners and the timers as it found
 * them; one that does not fails, naming what it left, and the process is put back for the next file.
 */
const SIGNALS = ["SIGINT", "SIGTERM"] as const;

const env = { ...process.env };
const cwd = process.cwd();
const exitCode = process.exitCode;
const listeners = SIGNALS.map((s) => process.listeners(s));

/** What differs from the file's start in process.env, each put back; a description of each. */
const restoreEnv = (): string[] =>
  [...new Set([...Object.keys(env), ...Object.keys(process.env)])].flatMap((name) => {
    if (process.env[name] === env[name]) return [];
    if (env[name] === undefined) delete process.env[name];
    else process.env[name] = env[name];
    return [`process.env.${name}`];
  });

const restoreSignals = (): string[] =>
  SIGNALS.flatMap((signal, i) => {
    const added = process.listeners(signal).filter((l) => !listeners[i]!.includes(l));
    for (const l of added) process.off(signal, l);
    return added.length > 0 ? [`${added.length} ${signal} listener(s)`] : [];
  });

afterAll(() => {
  const left = [...restoreEnv(), ...restoreSignals()];
  if (process.cwd() !== cwd) {
    left.push(`the working directory (${process.cwd()})`);
    process.chdir(cwd);
  }
  if (process.exitCode !== exitCode) {
    left.push(`process.exitCode (${process.exitCode})`);
    process.exitCode = exitCode;
  }
  if (vi.isFakeTimers()) {
    left.push("fake timers");
    vi.useRealTimers();
  }
  if (left.length > 0) {
    const file = relative(process.cwd(), expect.getState().testPath ?? "this test file");
    throw new Error(`${file} left ${left.join(", ")} changed for the test files after it: restore them in its afterEach or afterAll`);
  }
});
