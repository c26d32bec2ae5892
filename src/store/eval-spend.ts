import { existsSync, readFileSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../errors.ts";
import { appendJsonl, readJsonl, writeJsonAtomic } from "./jsonl.ts";
import { EpisodeRecord, StopRecord, UsageLine } from "./run-records.ts";

/**
 * What held-out evaluations of a run spend (docs/spec/method.md §11), kept under the run's eval/ folder beside the evaluations'
 * episode files, never in the run's own usage.jsonl: eval/usage.jsonl has a line per model call, naming the
 * evaluation file it was made for; eval/stopped.json marks the evaluation a spend cap stopped, which the next
 * `hexa eval` of the same seeds continues instead of playing its episodes again.
 */

export const EvalUsageLine = UsageLine.extend({ evalFile: z.string().describe("the evaluation's file name under eval/") });
export type EvalUsageLine = z.infer<typeof EvalUsageLine>;

export const EvalStop = StopRecord.extend({
  evalFile: z.string(),
  seeds: z.record(z.string(), z.array(z.number().int())),
});
export type EvalStop = z.infer<typeof EvalStop>;

const usagePath = (run: string) => join(run, "eval", "usage.jsonl");
const stopPath = (run: string) => join(run, "eval", "stopped.json");

/** Every evaluation's model calls; a torn last line (a process killed mid-write) is left for its writer. */
export const evalUsage = (run: string): EvalUsageLine[] => readJsonl(usagePath(run), EvalUsageLine, { repair: false });
export const appendEvalUsage = (run: string, line: EvalUsageLine): void => appendJsonl(usagePath(run), [line]);

export const evalStopped = (run: string): EvalStop | undefined => {
  const path = stopPath(run);
  if (!existsSync(path)) return undefined;
  const parsed = EvalStop.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success)
    throw new ConfigError(
      `${path}: not a hexa evaluation stop record (${parsed.error.issues[0]!.path.join(".")}: ${parsed.error.issues[0]!.message}); delete it and evaluate again`,
    );
  return parsed.data;
};
export const markEvalStopped = (run: string, rec: EvalStop): void => writeJsonAtomic(stopPath(run), rec);
export const clearEvalStopped = (run: string): void => rmSync(stopPath(run), { force: true });

const sameSeeds = (a: Readonly<Record<string, readonly number[]>>, b: Readonly<Record<string, readonly number[]>>): boolean => {
  const norm = (s: Readonly<Record<string, readonly number[]>>) =>
    JSON.stringify(
      Object.entries(s)
        .filter(([, v]) => v.length)
        .map(([l, v]) => [l, [...v].sort((x, y) => x - y)])
        .sort(([x], [y]) => String(x).localeCompare(String(y))),
    );
  return norm(a) === norm(b);
};

/** The evaluation of these seeds a cap stopped, with what it already played and spent; undefined when none. */
export const stoppedEvalOf = (
  run: string,
  seeds: Readonly<Record<string, readonly number[]>>,
): { file: string; played: EpisodeRecord[]; usage: EvalUsageLine[] } | undefined => {
  const stop = evalStopped(run);
  if (!stop || !sameSeeds(stop.seeds, seeds)) return undefined;
  const file = join(run, "eval", basename(stop.evalFile));
  if (!existsSync(file)) return undefined;
  return { file, played: readJsonl(file, EpisodeRecord, { repair: false }), usage: evalUsage(run).filter((l) => l.evalFile === basename(file)) };
};
