import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import yargs from "yargs";
import { ConfigError } from "../../../src/errors.ts";
import type { FamilyHost } from "../../../src/family/host.ts";
import { writeAtomic, writeJsonAtomic } from "../../../src/store/jsonl.ts";
import { getTask } from "../tasks/index.ts";
import type { IntentCase } from "./bench-intents-cases.ts";
import { caseResult, type CaseResult } from "./bench-intents-score.ts";
import { intentsCsv, intentsMarkdown, type IntentsSettings } from "./bench-intents-table.ts";
import { searchCommand } from "./search.ts";

/** What `hexa bench intents` (levels/reward-search/cli/bench-intents.ts) runs, its flags checked. */
export interface IntentsPlan {
  cases: IntentCase[];
  settings: IntentsSettings;
  /** The model flags every case's search is given (reviser, llm.judge, llm.vision), as `hexa search` takes them. */
  modelArgs: string[];
  processes: number | undefined;
  /** The Redis queue every case's trainings go to (hexa search --backend); undefined: this machine's trainer processes. */
  backend: string | undefined;
}

/** The `hexa search` arguments of one case: the p2p strategy on the case's intent at the bench's sizes. */
const searchArgs = (p: IntentsPlan, c: IntentCase, dir: string, out: string): string[] => {
  const s = p.settings;
  return [
    "search",
    ...["--env", c.task, "--intent", c.intent, "--strategy", "p2p", "--seed", String(s.seed)],
    ...["--budget", String(s.budget), "--configs", String(s.configs), "--train-seeds", String(s.trainSeeds), "--train-steps", String(s.trainSteps)],
    ...["--pass-at", String(s.passAt), "--judged-episodes", String(s.judgedEpisodes), "--judged-steps", String(s.judgedSteps)],
    ...["--out", dir, "--trainer-cache", join(out, ".trainer-cache")],
    ...(p.processes === undefined ? [] : ["--processes", String(p.processes)]),
    ...(p.backend === undefined ? [] : ["--backend", p.backend]),
    ...p.modelArgs,
  ];
};

/** `hexa search ARGS` in this process, as the CLI parses it; a refused flag or failed search throws. */
const search = async (args: string[], host: FamilyHost): Promise<void> => {
  await yargs(args)
    .command(searchCommand(host))
    .strict()
    .exitProcess(false)
    .fail((msg, err) => {
      throw err ?? new ConfigError(`hexa ${args.join(" ")}: ${msg}`);
    })
    .parseAsync();
};

/** Wall seconds a case's search took, summed over the bench runs that worked on it (a resumed case adds its rest). */
const wallFile = (dir: string) => join(dir, "bench-wall.json");
const wallSoFar = (dir: string): number => (existsSync(wallFile(dir)) ? Number(JSON.parse(readFileSync(wallFile(dir), "utf8")).wallS) || 0 : 0);

const errorFile = (dir: string) => join(dir, "bench-error.txt");

/**
 * One case: searched unless its search finished before (final-scores.json), then read back from its files. A
 * search that fails is tabled with its error and the numbers its files hold; the next bench run retries it.
 */
const runCase = async (p: IntentsPlan, c: IntentCase, out: string, host: FamilyHost): Promise<CaseResult> => {
  const dir = join(out, "cases", c.id);
  if (!existsSync(join(dir, "final-scores.json"))) {
    mkdirSync(dir, { recursive: true });
    rmSync(errorFile(dir), { force: true });
    process.stderr.write(`\n== ${c.id} (${c.task}): ${c.intent}\n`);
    const t0 = performance.now();
    try {
      await search(searchArgs(p, c, dir, out), host);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      writeAtomic(errorFile(dir), message);
      process.stderr.write(`${c.id}: the search stopped: ${message}\n`);
    } finally {
      writeJsonAtomic(wallFile(dir), { wallS: wallSoFar(dir) + (performance.now() - t0) / 1000 });
    }
  }
  const solvedAt = c.source === "f-backed" ? getTask(c.task).fitness.solved : null;
  const error = existsSync(errorFile(dir)) ? readFileSync(errorFile(dir), "utf8") : null;
  return caseResult(dir, c, { wallS: wallSoFar(dir), passAt: p.settings.passAt, solvedAt, error });
};

/** Runs every case into `out/cases/<id>/` (resumable by rerunning), then tables them: results.json, .md, .csv. */
export const runIntentsBench = async (p: IntentsPlan, out: string, host: FamilyHost): Promise<void> => {
  mkdirSync(out, { recursive: true });
  const results: CaseResult[] = [];
  for (const c of p.cases) results.push(await runCase(p, c, out, host));
  writeJsonAtomic(join(out, "results.json"), { schemaVersion: 1, settings: p.settings, cases: results });
  const md = intentsMarkdown(p.settings, results);
  writeAtomic(join(out, "results.md"), md);
  writeAtomic(join(out, "results.csv"), intentsCsv(results));
  process.stdout.write(`\n${md}\nresults: ${join(out, "results.md")} (.csv, .json); searches in ${join(out, "cases")}\n`);
  const failed = results.filter((r) => r.error !== null).map((r) => r.id);
  if (failed.length)
    throw new Error(`${failed.length} case(s) stopped with an error (${failed.join(", ")}; each in its bench-error.txt); rerun the same command to retry them`);
};
