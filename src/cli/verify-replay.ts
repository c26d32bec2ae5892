import type { TypedCommand } from "../cli-kit/define-command.ts";
import type { AppContext } from "../app/context.ts";
import { runCommand } from "./run.ts";

type Write = typeof process.stdout.write;

/**
 * Runs `hexa run CONFIG --runs-dir RUNS` in this process over `ctx` (its models: the recorded answers), exactly as
 * the command line does, with no endpoint check (--no-doctor), no confirmation, episodes played here, and its
 * output kept instead of printed.
 */
export const replayRun = async (ctx: AppContext, configPath: string, runsDir: string): Promise<{ error?: Error; output: string }> => {
  const kept: string[] = [];
  const keep = ((chunk: string | Uint8Array) => {
    kept.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    return true;
  }) as Write;
  const [out, err] = [process.stdout.write, process.stderr.write];
  process.stdout.write = keep;
  process.stderr.write = keep;
  const argv = {
    _: ["run"],
    $0: "hexa",
    config: configPath,
    runsDir,
    "runs-dir": runsDir,
    doctor: false,
    yes: true,
    backend: "local",
    printConfig: false,
    "print-config": false,
  };
  try {
    await (runCommand(ctx) as unknown as TypedCommand<Record<string, unknown>>).handler(argv as never);
    return { output: kept.join("") };
  } catch (e) {
    return { error: e instanceof Error ? e : new Error(String(e)), output: kept.join("") };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
};
