import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../../src/errors.ts";
import { appendJsonl, readJsonl, writeJsonAtomic } from "../../../src/store/jsonl.ts";
import type { RewardTask } from "../task.ts";
import { CandidateRecord, fitnessOf, SearchHeader, type CandidateLog, type SearchResult } from "./candidates.ts";
import { runEureka, type EurekaConfig, type StrategyRun } from "./eureka.ts";
import { runRfAgent, type RfAgentConfig } from "./rf-agent.ts";

/**
 * One search of one task instance with one strategy, in a run directory: `search.json` (what the search is)
 * and `candidates.jsonl` (its lineage, one line per trained candidate). Running it again on the same
 * directory resumes it: finished candidates are replayed from the file, the rest are trained.
 */
export const STRATEGIES = ["eureka", "rf-agent"] as const;
export type Strategy = (typeof STRATEGIES)[number];

export const DEFAULT_BUDGET: Record<Strategy, number> = { eureka: 16, "rf-agent": 16 };

/** candidates.jsonl of a run directory, read with torn-line recovery, appended one flushed line per candidate. */
export const jsonlCandidateLog = (dir: string): CandidateLog => {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "candidates.jsonl");
  return { read: () => readJsonl(path, CandidateRecord), append: (r) => appendJsonl(path, [r]) };
};

/** Writes search.json, or checks that an existing one (a resume) describes the same search. */
export const openSearchDir = (dir: string, header: SearchHeader): CandidateLog => {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "search.json");
  if (existsSync(path)) {
    const old = SearchHeader.parse(JSON.parse(readFileSync(path, "utf8")));
    const a = JSON.stringify(old);
    const b = JSON.stringify(SearchHeader.parse(header));
    if (a !== b) throw new ConfigError(`${path}: this directory holds another search (${a}; asked for ${b}); give a new --out or the same settings to resume`);
  } else {
    writeJsonAtomic(path, header);
  }
  return jsonlCandidateLog(dir);
};

export interface SearchOptions {
  eureka?: Partial<EurekaConfig>;
  rfAgent?: Partial<RfAgentConfig>;
}

export const runSearch = (strategy: Strategy, run: StrategyRun, opts: SearchOptions = {}): Promise<SearchResult> => {
  switch (strategy) {
    case "eureka":
      return runEureka(run, opts.eureka);
    case "rf-agent":
      return runRfAgent(run, opts.rfAgent);
  }
};

const f2 = (x: number) => x.toFixed(2);

/** The search in a few lines: the best candidate's final-policy F, its best checkpoint labelled, the budget. */
export const formatSearch = (r: SearchResult, task: RewardTask, proposer: string): string => {
  const ok = r.candidates.filter((c) => fitnessOf(c) !== null).length;
  const lines = [
    `${r.strategy} on ${task.id} with ${proposer}: ${r.candidates.length}/${r.budget} candidates trained (${ok} ok, ${r.candidates.length - ok} failed; ${r.replayed} replayed from the log, ${r.trainings} trained now)`,
  ];
  const b = r.best;
  if (!b || b.outcome.kind !== "result") {
    lines.push("no candidate trained successfully");
    return lines.join("\n");
  }
  lines.push(
    `best: candidate #${b.index} (${b.operator}${b.parent === null ? "" : ` of #${b.parent}`}), F of the final policy ${f2(b.outcome.fitness)} on held-out seeds [${b.outcome.perSeed.map((p) => p.seed).join(", ")}] (solved at ≥ ${task.fitness.solved})`,
    `best checkpoint during its training (labelled, not the score): F ${f2(b.outcome.bestCheckpoint.fitness)} at step ${b.outcome.bestCheckpoint.step}`,
    `thought: ${b.thought}`,
  );
  return lines.join("\n");
};
