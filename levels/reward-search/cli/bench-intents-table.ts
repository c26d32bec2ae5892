/** The table of `hexa bench intents` (docs/benchmarks/intents.md): one row per case, the F-backed agreement, the totals. */
import { z } from "zod";
import { CaseResult } from "./bench-intents-score.ts";

/** The sizes every case's search ran at, and the command that ran them. */
export const IntentsSettings = z.object({
  command: z.string(),
  seed: z.number().int(),
  budget: z.number().int(),
  configs: z.number().int(),
  trainSeeds: z.number().int(),
  trainSteps: z.number().int(),
  passAt: z.number(),
  judgedEpisodes: z.number().int(),
  judgedSteps: z.number().int(),
  models: z.object({ reviser: z.string(), judge: z.string(), vision: z.string().nullable() }),
});
export type IntentsSettings = z.infer<typeof IntentsSettings>;

/** results.json of a bench folder. */
export const IntentsResults = z.object({ schemaVersion: z.literal(1), settings: IntentsSettings, cases: z.array(CaseResult) });

const f2 = (x: number | null) => (x === null ? "–" : x.toFixed(2));
const yes = (b: boolean) => (b ? "yes" : "no");
const int = (n: number) => n.toLocaleString("en-US");
/** One decimal, without a "-0.0" for a small negative. */
const f1 = (x: number) => (Math.abs(x) < 0.05 ? 0 : x).toFixed(1);

const row = (r: CaseResult): string =>
  [
    r.error === null ? r.id : `${r.id} (stopped: ${r.error.replaceAll("|", "/").replaceAll("\n", " ").slice(0, 160)})`,
    r.category,
    r.difficulty,
    f2(r.bestScore),
    yes(r.judgedSuccess),
    String(r.iterations),
    int(r.envSteps),
    r.wallS.toFixed(0),
    String(r.models.calls),
    int(r.models.input + r.models.output),
    r.models.unpriced ? "unpriced" : `$${r.models.costUsd.toFixed(4)}`,
    r.fitness ? `${f1(r.fitness.f)} / ${r.fitness.solvedAt}` : "–",
    r.fitness ? yes(r.fitness.solved) : "–",
    r.fitness ? yes(r.fitness.agrees) : "–",
  ].join(" | ");

/** The sums over the cases and the F-backed agreement, in words. */
export const intentsTotals = (rs: readonly CaseResult[]): string[] => {
  const sum = (f: (r: CaseResult) => number) => rs.reduce((a, r) => a + f(r), 0);
  const fb = rs.filter((r) => r.fitness !== null);
  const agree = fb.filter((r) => r.fitness!.agrees).length;
  return [
    ...(rs.some((r) => r.error !== null)
      ? [
          `stopped with an error: ${rs
            .filter((r) => r.error !== null)
            .map((r) => r.id)
            .join(", ")} (tabled with what their files hold)`,
        ]
      : []),
    `judged successes: ${rs.filter((r) => r.judgedSuccess).length} of ${rs.length} cases (best judged score ≥ the pass threshold)`,
    `F-backed cases: judged success agrees with F's solved verdict on ${agree} of ${fb.length} (F solved on ${fb.filter((r) => r.fitness!.solved).length})`,
    `totals: ${sum((r) => r.iterations)} iterations, ${sum((r) => r.trainings)} trainings, ${int(sum((r) => r.envSteps))} env steps, ${sum((r) => r.wallS).toFixed(0)} s, ${sum((r) => r.models.calls)} model calls, ${int(sum((r) => r.models.input))} input + ${int(sum((r) => r.models.output))} output tokens`,
  ];
};

export const intentsMarkdown = (s: IntentsSettings, rs: readonly CaseResult[]): string =>
  [
    `command: ${s.command}`,
    `each case: the p2p strategy, ${s.budget} trainings (${s.configs} config × ${s.trainSeeds} seed per iteration) of ${int(s.trainSteps)} env steps, seed ${s.seed}; ${s.judgedEpisodes} judged episode(s) of at most ${s.judgedSteps} steps per checkpoint; pass at ${s.passAt}`,
    `models: reviser ${s.models.reviser}; llm.judge ${s.models.judge}; llm.vision ${s.models.vision ?? "none (the code judge alone)"}`,
    "",
    "| case | category | difficulty | best score | judged success | iterations | env steps | wall s | model calls | tokens | cost | F / solved at | F solved | agrees |",
    "|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ...rs.map((r) => `| ${row(r)} |`),
    "",
    ...intentsTotals(rs),
    "",
  ].join("\n");

const csvField = (v: string | number | boolean | null) => {
  const t = v === null ? "" : String(v);
  return /[",\n]/.test(t) ? `"${t.replaceAll('"', '""')}"` : t;
};

export const intentsCsv = (rs: readonly CaseResult[]): string => {
  const head =
    "id,task,category,difficulty,intent,error,best_score,judged_success,iterations,trainings,env_steps,wall_s,model_calls,input_tokens,output_tokens,cost_usd,unpriced_calls,f,f_solved_at,f_solved,agrees";
  const lines = rs.map((r) =>
    [
      r.id,
      r.task,
      r.category,
      r.difficulty,
      r.intent,
      r.error,
      r.bestScore,
      r.judgedSuccess,
      r.iterations,
      r.trainings,
      r.envSteps,
      r.wallS.toFixed(1),
      r.models.calls,
      r.models.input,
      r.models.output,
      r.models.costUsd,
      r.models.unpriced,
      r.fitness?.f ?? null,
      r.fitness?.solvedAt ?? null,
      r.fitness?.solved ?? null,
      r.fitness?.agrees ?? null,
    ]
      .map(csvField)
      .join(","),
  );
  return `${[head, ...lines].join("\n")}\n`;
};
