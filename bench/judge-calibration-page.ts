/**
 * The judge calibration page as a pure function of its data (docs/benchmarks/data/judge-calibration.json): every
 * judged episode of every policy of known quality, with its F and each judge's score and pass on each repeat,
 * from which the rank correlations, the agreement with F's solved verdict, the spread over repeats and their
 * intervals over policies are computed again on every render.
 */
import { z } from "zod";
import { mean } from "../src/util/stats.ts";
import { type BootInterval, bootstrapUnits, repeatSpread, spearman } from "./judge-calibration-stats.ts";

export const JUDGE_NAMES = ["fitness", "code", "vision", "synthesis"] as const;
const JudgeName = z.enum(JUDGE_NAMES);
export type JudgeName = z.infer<typeof JudgeName>;

/** One judge's judgment of one episode on one repeat; null score: it gave none (the note says why). */
export const EpisodeVerdict = z.strictObject({
  score: z.number().min(0).max(1).nullable(),
  passed: z.boolean().nullable(),
  note: z.string().max(500).optional(),
});
export type EpisodeVerdict = z.infer<typeof EpisodeVerdict>;

const Episode = z.strictObject({
  seed: z.number().int().min(0),
  steps: z.number().int().min(0),
  /** F of the episode. */
  fitness: z.number(),
  /** Per judge that ran, its verdict on each repeat, in order. */
  judges: z.partialRecord(JudgeName, z.array(EpisodeVerdict)),
});

const Policy = z.strictObject({
  task: z.string(),
  name: z.string(),
  expected: z.string(),
  /** The training's wall time when the policy was trained (kept by the cache); null: not trained. */
  trainSeconds: z.number().min(0).nullable(),
  /** The policy was read from the bench's cache, trained by an earlier run. */
  cached: z.boolean(),
  episodes: z.array(Episode).min(1),
});
type Policy = z.infer<typeof Policy>;

const JudgeEntry = z.strictObject({
  name: JudgeName,
  label: z.string(),
  model: z.string().nullable(),
  /** null where it ran; else why not. */
  notRun: z.string().nullable(),
  notes: z.array(z.string()),
});

const ModelEntry = z.strictObject({ kind: z.enum(["scripted", "endpoint"]), name: z.string(), note: z.string() });

export const CalibrationData = z.strictObject({
  schemaVersion: z.literal(1),
  command: z.string(),
  /** The command that makes the page's numbers with a real judge model. */
  rerun: z.string(),
  commit: z.string(),
  machine: z.string(),
  started: z.string(),
  finished: z.string(),
  loadStart: z.array(z.number()).length(3),
  loadEnd: z.array(z.number()).length(3),
  /** Who authored the code judges (and settled disagreements): the scripted fixture or a model at an endpoint. */
  model: ModelEntry,
  /** Who judged the frames: the scripted vision server or a model at an endpoint; absent where the vision judge did not run. */
  visionModel: ModelEntry.optional(),
  tasks: z.array(z.strictObject({ id: z.string(), solved: z.number(), fitness: z.string() })).min(1),
  intent: z.string(),
  repeats: z.number().int().min(1),
  episodesPerPolicy: z.number().int().min(1),
  passThreshold: z.number().min(0).max(1),
  resamples: z.number().int().min(1),
  judges: z.array(JudgeEntry).min(1),
  policies: z.array(Policy).min(2),
});
export type CalibrationData = z.infer<typeof CalibrationData>;

const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "–");
const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : "–");
const loads = (l: readonly number[]): string => l.map((v) => v.toFixed(2)).join(" / ");

/** A policy's score by a judge: the mean over repeats of the mean over its episodes; NaN where it gave none. */
export const policyScore = (p: Policy, judge: JudgeName): number => {
  const repeats = Math.max(0, ...p.episodes.map((e) => e.judges[judge]?.length ?? 0));
  const perRepeat = Array.from({ length: repeats }, (_, r) => repeatScore(p, judge, r)).filter(Number.isFinite);
  return mean(perRepeat);
};

/** The mean of a policy's episode scores on one repeat; NaN when an episode has no score. */
const repeatScore = (p: Policy, judge: JudgeName, r: number): number => {
  const scores = p.episodes.map((e) => e.judges[judge]?.[r]?.score ?? null);
  return scores.every((s) => s !== null) ? mean(scores as number[]) : NaN;
};

const solvedBy = (d: CalibrationData, p: Policy): number => d.tasks.find((t) => t.id === p.task)!.solved;

/** Per policy: [episode judgments that agree with F's solved verdict, judgments with a verdict]. */
const agreementCounts = (d: CalibrationData, judge: JudgeName): [number, number][] =>
  d.policies.map((p) => {
    let agree = 0,
      total = 0;
    for (const e of p.episodes)
      for (const v of e.judges[judge] ?? []) {
        if (v.passed === null) continue;
        total++;
        if (v.passed === e.fitness >= solvedBy(d, p)) agree++;
      }
    return [agree, total];
  });

/** How many judged episodes reach F's solved threshold: the base rate the agreement is read against. */
const solvedEpisodes = (d: CalibrationData): string => {
  const episodes = d.policies.flatMap((p) => p.episodes.map((e) => e.fitness >= solvedBy(d, p)));
  return `${episodes.filter(Boolean).length} of ${episodes.length} episodes`;
};

const interval = (b: BootInterval, what: string): string =>
  `${f2(b.value)} [${f2(b.low)}, ${f2(b.high)}] (95 % bootstrap over ${b.n} ${what}, ${b.resamples} resamples${b.undefinedResamples ? `, ${b.undefinedResamples} undefined left out` : ""})`;

interface JudgeStats {
  pooled: BootInterval;
  perTask: { task: string; rho: number; n: number }[];
  agreement: BootInterval & { agree: number; total: number };
  spread: ReturnType<typeof repeatSpread>;
  scored: number;
}

/** Every statistic of one judge that ran. */
export const judgeStats = (d: CalibrationData, judge: JudgeName): JudgeStats => {
  const scored = d.policies.filter((p) => Number.isFinite(policyScore(p, judge)));
  const x = scored.map((p) => policyScore(p, judge));
  const ref = scored.map((p) => policyScore(p, "fitness"));
  const opts = { resamples: d.resamples, seed: 1 };
  const pooled = bootstrapUnits(
    scored.length,
    (u) =>
      spearman(
        u.map((i) => x[i]!),
        u.map((i) => ref[i]!),
      ),
    opts,
  );
  const perTask = d.tasks.map((t) => {
    const ps = scored.filter((p) => p.task === t.id);
    return {
      task: t.id,
      n: ps.length,
      rho: spearman(
        ps.map((p) => policyScore(p, judge)),
        ps.map((p) => mean(p.episodes.map((e) => e.fitness))),
      ),
    };
  });
  const counts = agreementCounts(d, judge);
  const ratio = (u: readonly number[]) => u.reduce((s, i) => s + counts[i]![0], 0) / u.reduce((s, i) => s + counts[i]![1], 0);
  const agreement = {
    ...bootstrapUnits(counts.length, ratio, opts),
    agree: counts.reduce((s, c) => s + c[0], 0),
    total: counts.reduce((s, c) => s + c[1], 0),
  };
  const spread = repeatSpread(d.policies.map((p) => Array.from({ length: d.repeats }, (_, r) => repeatScore(p, judge, r)).filter(Number.isFinite)));
  return { pooled, perTask, agreement, spread, scored: scored.length };
};

const judgeSection = (d: CalibrationData, j: CalibrationData["judges"][number]): string[] => {
  const head = `## ${j.label}${j.model ? ` (model: ${j.model})` : ""}`;
  if (j.notRun !== null) return [head, "", `${j.name} judge: not run (${j.notRun})`, ...j.notes.map((n) => `note: ${n}`)];
  const s = judgeStats(d, j.name);
  return [
    head,
    "",
    `policies scored: ${s.scored} of ${d.policies.length}`,
    `Spearman ρ with the fitness judge's score, pooled over tasks: ${interval(s.pooled, "policies")}`,
    `Spearman ρ with mean F, per task: ${s.perTask.map((t) => `${t.task} ${f2(t.rho)} (n ${t.n} policies)`).join("; ")}`,
    `agreement with F's solved / not-solved verdict: ${s.agreement.agree} of ${s.agreement.total} episode judgments (F solved on ${solvedEpisodes(d)}); ${interval(s.agreement, "policies")}`,
    `spread over ${d.repeats} repeats (sd of a policy's score): mean ${f3(s.spread.mean)}, max ${f3(s.spread.max)} over ${s.spread.units} policies`,
    ...j.notes.map((n) => `note: ${n}`),
  ];
};

const policyTable = (d: CalibrationData): string[] => {
  const ran = d.judges.filter((j) => j.notRun === null).map((j) => j.name);
  return [
    "## Policies",
    "",
    `| task | policy | expected | mean F | F solved (episodes) | ${ran.map((n) => `${n} score`).join(" | ")} | train s |`,
    `|---|---|---|---:|---:|${ran.map(() => "---:|").join("")}---:|`,
    ...d.policies.map((p) => {
      const solved = p.episodes.filter((e) => e.fitness >= solvedBy(d, p)).length;
      const scores = ran.map((n) => f3(policyScore(p, n))).join(" | ");
      const train = p.trainSeconds === null ? "–" : `${p.trainSeconds.toFixed(0)}${p.cached ? " (cached)" : ""}`;
      return `| ${p.task} | ${p.name} | ${p.expected} | ${f2(mean(p.episodes.map((e) => e.fitness)))} | ${solved} of ${p.episodes.length} | ${scores} | ${train} |`;
    }),
  ];
};

export const renderCalibrationPage = (d: CalibrationData, title: string, dataPath: string): string =>
  [
    `# ${title}`,
    "",
    `- Command: \`${d.command}\``,
    `- Commit: ${d.commit}`,
    `- Machine: ${d.machine}`,
    `- Date: ${d.started} to ${d.finished}`,
    `- Load average (1 / 5 / 15 min): ${loads(d.loadStart)} at start, ${loads(d.loadEnd)} at end`,
    `- Code judges authored by: ${d.model.name} (${d.model.kind}): ${d.model.note}`,
    ...(d.visionModel ? [`- Frames judged by: ${d.visionModel.name} (${d.visionModel.kind}): ${d.visionModel.note}`] : []),
    `- Rerun with real models: \`${d.rerun}\``,
    `- Data: [${dataPath}](${dataPath})`,
    "",
    "Rendered from the data file above by bench/judge-calibration-page.ts (a test renders it again and compares):",
    "",
    "```text",
    `intent: ${d.intent}`,
    `tasks: ${d.tasks.map((t) => `${t.id} (F: ${t.fitness}; solved at F ≥ ${t.solved})`).join("; ")}`,
    `${d.policies.length} policies, ${d.episodesPerPolicy} episodes each (the instance's evaluation seeds), each judged ${d.repeats} times (repeats fixed before the run); a judge passes an episode at a score ≥ ${d.passThreshold}`,
    "a policy's score: the mean over repeats of the mean over its episodes; the fitness judge is the reference (F scaled by the task's solved threshold, clamped to [0, 1])",
    "",
    ...d.judges.flatMap((j) => [...judgeSection(d, j), ""]),
    ...policyTable(d),
    "```",
    "",
  ].join("\n");
