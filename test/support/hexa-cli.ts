import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The repository root: where `bin/hexa.js` runs from. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface Out {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface SpawnOptions {
  /**
   * Merged over the test's environment; CHROMA_URL is always removed (tests start their own index). HEXA_LAUNCHER
   * is `hexa` unless given, so the commands hexa prints read as a linked `hexa` prints them (src/cli/invocation.ts).
   */
  env?: NodeJS.ProcessEnv;
  /** Called with all of stderr so far, each time more arrives (e.g. to kill the child at a moment). */
  onStderr?: (stderr: string, child: ChildProcess) => void;
  /** Its own process group, so that `process.kill(-pid)` ends the children it starts too. */
  detached?: boolean;
}

/** `hexa ARGS` as a user runs it: the real CLI in a child process. */
export const spawnHexa = (args: readonly string[], o: SpawnOptions = {}): { child: ChildProcess; done: Promise<Out> } => {
  const env: NodeJS.ProcessEnv = { ...process.env, HEXA_LAUNCHER: "hexa", ...o.env };
  delete env.CHROMA_URL;
  const child = spawn(process.execPath, ["bin/hexa.js", ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: o.detached ?? false });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
    o.onStderr?.(stderr, child);
  });
  const done = new Promise<Out>((ok, fail) => {
    child.once("error", fail);
    child.once("close", (status, signal) => ok({ status, signal, stdout, stderr }));
  });
  return { child, done };
};

export const hexa = (args: readonly string[], o: SpawnOptions = {}): Promise<Out> => spawnHexa(args, o).done;
