/**
 * One case of `hexa bench intents` as its search directory records it (docs/benchmarks/intents.md): every number
 * is read from the search's own files — search.json (the pass threshold), iterations.jsonl and trainings/ (best
 * judged score, iterations, env steps, F of the best policy), llm-log.jsonl (model calls, tokens, cost) — never
 * from what the bench saw while it ran, so a resumed bench tables the same numbers.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { costUsd, priceOf } from "../../../src/llm/accounting.ts";
import { AuditLine } from "../../../src/llm/audit-log.ts";
import { DEFAULT_PRICES } from "../../../src/llm/config.ts";
import { SearchHeader } from "../../../src/search/candidates.ts";
import { p2pDirLog, type IterationRecord } from "../../../src/search/p2p-log.ts";
import { readJsonl } from "../../../src/store/jsonl.ts";
import { bestIteration } from "../../../src/search/p2p-context.ts";
import type { IntentCase } from "./bench-intents-cases.ts";

const STAGES = ["case", "reviser", "checkpoint"] as const;
type Stage = (typeof STAGES)[number];

/**
 * When a call is made, by the answer schema it asks for or the tools it offers: authoring and criteria once a
 * case, the reviser's steps (its turns with its lineage tools too), the judging of a checkpoint (vision verdicts
 * and the synthesiser's turns).
 */
const stageOf = ({ outputSchema: schema, tools }: { outputSchema?: string | undefined; tools: readonly string[] }): Stage => {
  if (tools.includes("set_lesson_tier")) return "reviser";
  if (schema === undefined) return "checkpoint";
  if (schema.startsWith("judge_") || schema === "vision_criteria" || schema === "vision_review") return "case";
  if (schema === "reward_proposal" || schema === "p2p_revision" || schema === "hp_variant") return "reviser";
  return "checkpoint";
};

/** What the bench measured of one case: the search's records, and F where the task's F means the intent's words. */
export const CaseResult = z.object({
  id: z.string(),
  task: z.string(),
  intent: z.string(),
  category: z.string(),
  difficulty: z.string(),
  source: z.enum(["p2p", "f-backed"]),
  /** Why the case's search stopped with an error (its numbers are then what its files hold so far); null when it finished. */
  error: z.string().nullable(),
  passAt: z.number(),
  bestScore: z.number().nullable(),
  /** Best judged score ≥ the pass threshold. */
  judgedSuccess: z.boolean(),
  iterations: z.number().int(),
  trainings: z.number().int(),
  envSteps: z.number().int(),
  wallS: z.number(),
  /** Checkpoints judged over all trainings (each rolled out on the judged seeds and judged). */
  judgedCheckpoints: z.number().int(),
  models: z.object({
    calls: z.number().int(),
    input: z.number().int(),
    output: z.number().int(),
    costUsd: z.number(),
    unpriced: z.number().int(),
    /** Calls and tokens (input + output) by when they happen: once per case, per reviser step, per judged checkpoint. */
    stages: z.record(z.enum(STAGES), z.object({ calls: z.number().int(), tokens: z.number().int() })),
  }),
  /** F-backed cases: F of the best iteration's best configuration (mean over its seeds' final policies), its solved verdict, and whether the judged success agrees. */
  fitness: z.object({ f: z.number(), solvedAt: z.number(), solved: z.boolean(), agrees: z.boolean() }).nullable(),
});
export type CaseResult = z.infer<typeof CaseResult>;

const modelUse = (dir: string): CaseResult["models"] => {
  const path = join(dir, "llm-log.jsonl");
  const lines = existsSync(path) ? readJsonl(path, AuditLine) : [];
  const stages = Object.fromEntries(STAGES.map((s) => [s, { calls: 0, tokens: 0 }])) as CaseResult["models"]["stages"];
  const m = { calls: 0, input: 0, output: 0, costUsd: 0, unpriced: 0, stages };
  for (const l of lines) {
    if (l.fromCache || !l.usage) continue;
    m.calls++;
    const st = stages[stageOf(l)];
    st.calls++;
    st.tokens += l.usage.input + l.usage.output;
    m.input += l.usage.input;
    m.output += l.usage.output;
    const price = priceOf(DEFAULT_PRICES, l.modelReported ?? l.modelRequested);
    if (price) m.costUsd += costUsd(price, l.usage);
    else m.unpriced++;
  }
  return m;
};

/** The final F of each seed's training of `config` in `it` (the trainer's evaluation of the final policy). */
const finalFitness = (dir: string, it: IterationRecord, config: number): number[] => {
  const log = p2pDirLog(dir);
  const c = it.configs.find((x) => x.config === config)!;
  return c.seeds.flatMap((s) => {
    const t = log.training(it.iteration, config, s);
    const last = t?.outcome.kind === "result" ? t.outcome.checkpoints.at(-1)?.fitness : null;
    return last === null || last === undefined ? [] : [last];
  });
};

/** The pass threshold search.json records; the bench's own where the search stopped before writing it. */
const passAtOf = (dir: string, planned: number): number => {
  const path = join(dir, "search.json");
  if (!existsSync(path)) return planned;
  return z.number().parse(SearchHeader.parse(JSON.parse(readFileSync(path, "utf8"))).options.passAt);
};

/** What the bench knows of a case besides its files: its wall time, the planned pass threshold, F's threshold on an F-backed case, and the error that stopped it. */
export interface CaseRun {
  wallS: number;
  passAt: number;
  solvedAt: number | null;
  error: string | null;
}

/** The case's result from its search directory, finished or stopped by `run.error`. */
export const caseResult = (dir: string, c: IntentCase, run: CaseRun): CaseResult => {
  const { wallS, solvedAt, error } = run;
  const passAt = passAtOf(dir, run.passAt);
  const log = p2pDirLog(dir);
  const its = log.iterations();
  const best = bestIteration(its);
  let trainings = 0;
  let envSteps = 0;
  let judgedCheckpoints = 0;
  for (const it of its)
    for (const cfg of it.configs)
      for (const s of cfg.seeds) {
        const t = log.training(it.iteration, cfg.config, s);
        trainings++;
        envSteps += t?.outcome.kind === "result" ? t.outcome.steps : 0;
        judgedCheckpoints += t?.judged.length ?? 0;
      }
  const bestScore = best?.score ?? null;
  const judgedSuccess = bestScore !== null && bestScore >= passAt;
  const fs = best && solvedAt !== null ? finalFitness(dir, best, best.best) : [];
  const f = fs.length ? fs.reduce((a, x) => a + x, 0) / fs.length : null;
  const fitness = solvedAt !== null && f !== null ? { f, solvedAt, solved: f >= solvedAt, agrees: f >= solvedAt === judgedSuccess } : null;
  const { id, task, intent, category, difficulty, source } = c;
  return {
    id,
    task,
    intent,
    category,
    difficulty,
    source,
    passAt,
    bestScore,
    judgedSuccess,
    iterations: its.length,
    trainings,
    envSteps,
    judgedCheckpoints,
    wallS,
    models: modelUse(dir),
    fitness,
    error,
  };
};
