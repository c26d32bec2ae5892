import { appendFileSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { LevelFamily } from "../family/family.ts";
import type { RunConfig } from "../loop/run-config.ts";
import { readFinalScores } from "../store/final-scores.ts";
import { readJsonl } from "../store/jsonl.ts";
import { isEvalFileName, RunDir, updateKey } from "../store/run-dir.ts";
import { EpisodeRecord } from "../store/run-records.ts";
import { hexaChild } from "./hexa-child.ts";
import { runIdOf } from "./run-id.ts";

/** The runs of a comparison on disk (docs/spec/method.md §8): each (cell, run) is a `hexa run` child process's run directory. */

// A child exits when its stdin closes, i.e. when compare dies (even by kill -9), so a rerun never meets an
// orphan holding a run's lock. unref: the guard alone never keeps a finished child alive.
const GUARD =
  "data:text/javascript,process.stdin.on('end',()=>process.exit(137));process.stdin.on('error',()=>process.exit(137));process.stdin.resume();process.stdin.unref()";

/** The run directory of a (cell, run), found by its id without the timestamp; undefined before it was made. */
export const findRun = (runsDir: string, cfg: RunConfig, family: LevelFamily): RunDir | undefined => {
  const prefix = runIdOf(cfg, family, new Date(0)).replace(/__[^_]+$/, "__");
  const found = (existsSync(runsDir) ? readdirSync(runsDir) : []).filter((d) => d.startsWith(prefix) && existsSync(join(runsDir, d, "run.json"))).sort();
  return found.length ? RunDir.open(join(runsDir, found.at(-1)!)) : undefined;
};

/** Whether the family gives this run final scores (hexa run writes final-scores.json after the rounds). */
const finalScoresDue = (family: LevelFamily, cfg: RunConfig): boolean =>
  family.search?.finalScores !== undefined && (family.search.finalScoresDue?.(cfg) ?? true);

export const finished = (dir: RunDir, cfg: RunConfig, family: LevelFamily): boolean => {
  // A family's whole search (no rounds) is finished when its final scores are written.
  if (family.search?.searchFor(cfg)) return readFinalScores(dir.path) !== undefined;
  const stream = new Set(dir.episodes({ repair: false }).flatMap((e) => (e.phase === "stream" ? [e.id] : [])));
  const log = dir.bankLog({ repair: false });
  return (
    stream.size >= cfg.rounds * cfg.episodesPerRound * cfg.levels.length &&
    cfg.levels.every((l) => log.done.has(updateKey(l, cfg.rounds))) &&
    existsSync(dir.file("metrics")) &&
    // A run killed while its final trainings ran has its metrics but not its final scores: `run --resume` scores it.
    (!finalScoresDue(family, cfg) || readFinalScores(dir.path) !== undefined)
  );
};

/** The newest eval file holding every level × held-out seed, as outcomes (a killed evaluation's file is partial). */
export const heldOutOf = (dir: RunDir, cfg: RunConfig, seeds: Record<string, number[]>): EpisodeRecord[] | undefined => {
  const folder = join(dir.path, "eval");
  if (!existsSync(folder)) return undefined;
  const files = readdirSync(folder).filter(isEvalFileName).sort().reverse();
  for (const f of files) {
    const recs = readJsonl(join(folder, f), EpisodeRecord, { repair: false });
    const has = new Set(recs.map((r) => `${r.level}/${r.seed}`));
    if (cfg.levels.every((l) => (seeds[l] ?? []).every((s) => has.has(`${l}/${s}`)))) return recs.filter((r) => seeds[r.level]?.includes(r.seed));
  }
  return undefined;
};

export const child = async (args: string[], logFile: string): Promise<{ code: number; ms: number }> => {
  const t0 = performance.now();
  appendFileSync(logFile, `\n$ hexa ${args.join(" ")}\n`);
  const log = { file: logFile, append: true } as const;
  // stdin stays an open pipe (the guard's lifeline); cleanup off: the guard, not a parent exit handler, ends the child.
  const r = await hexaChild(args, { stdin: "pipe", stdout: log, stderr: log, reject: false, cleanup: false }, ["--import", GUARD]);
  // A child that could not start is an error; one killed by a signal counts as exit code 1.
  if (r.exitCode === undefined && r.signal === undefined) throw r;
  return { code: r.exitCode ?? 1, ms: performance.now() - t0 };
};
