import { vi } from "vitest";

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * What a test file could leave changed in a worker process that later files share (test/support/leaves-process-as-found.ts):
 * process.env, the working directory, process.exitCode, SIGINT/SIGTERM listeners and fake timers. Takes a snapshot;
 * the returned function puts back whatever differs from it and names each thing it put back.
 */
export const processSnapshot = (): (() => string[]) => {
  const env = { ...process.env };
  const cwd = process.cwd();
  const exitCode = process.exitCode;
  const listeners = SIGNALS.map((s) => process.listeners(s));

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

  return () => {
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
    return left;
  };
};
