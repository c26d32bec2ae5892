/**
 * The judges the calibration bench measures (docs/benchmarks/judge-calibration.md), as a list: the fitness judge
 * (the reference), the code judge a model authors for the intent, and the vision judge (judge-calibration-vision.ts);
 * then the synthesis of the code and vision judges' verdicts on each episode. A judge that cannot run says why,
 * and the page prints that instead of a score.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { RoleModel } from "../src/llm/ask.ts";
import { episodeFitness, FITNESS_LABEL, fitnessScore } from "../levels/reward-search/cli/judge-fitness.ts";
import { AgreementConfig } from "../levels/reward-search/judging/agreement.ts";
import { authorJudge } from "../levels/reward-search/judging/author.ts";
import { breakdownLines } from "../levels/reward-search/judging/breakdown-text.ts";
import { judgeTrajectory } from "../levels/reward-search/judging/judge.ts";
import { synthesiseJudges } from "../levels/reward-search/judging/synthesiser.ts";
import type { SynthesisRecord } from "../levels/reward-search/judging/synthesis.ts";
import type { ReaskVision } from "../levels/reward-search/judging/synthesiser-tools.ts";
import type { RewardTask } from "../levels/reward-search/task.ts";
import type { TrajectoryRecord } from "../levels/reward-search/trajectory/record.ts";
import type { EpisodeVerdict } from "./judge-calibration-page.ts";

export const PASS_THRESHOLD = AgreementConfig.parse({}).passThreshold;

/**
 * A verdict with what the synthesiser is shown of it (the code judge's breakdown, the vision judge's assessment)
 * and, from the vision judge, its `reask_vision` on the episode.
 */
export type JudgedEpisode = EpisodeVerdict & { detail?: string[]; reask?: ReaskVision };

/** One judge, ready for one task, intent and repeat. */
export type EpisodeJudge = (record: TrajectoryRecord, trajectory: string) => Promise<JudgedEpisode>;

export interface CalibrationJudge {
  name: "fitness" | "code" | "vision";
  label: string;
  model: string | null;
  /** null where it runs; else why it does not (printed on the page instead of a score). */
  notRun: string | null;
  /** What happened while it judged (e.g. how each authoring went), for the page. */
  notes: string[];
  forTask(task: RewardTask, intent: string, repeat: number): Promise<EpisodeJudge>;
}

const cut = (s: string) => s.slice(0, 500);

/** F against the task's solved threshold (levels/reward-search/cli/judge-fitness.ts): passes exactly when F is solved. */
export const fitnessJudge = (): CalibrationJudge => ({
  name: "fitness",
  label: `fitness judge: ${FITNESS_LABEL}`,
  model: null,
  notRun: null,
  notes: [],
  forTask: async (task) => async (record) => {
    const f = episodeFitness(record);
    return { score: fitnessScore(f, task.fitness), passed: f >= task.fitness.solved };
  },
});

/**
 * The code judge: authored by `model(task)` for the intent on every repeat, into a fresh store under `dir`, then
 * run sandboxed on each episode. An authoring that fails leaves that repeat's episodes without a score, noted.
 */
export const codeJudge = (modelName: string, model: (task: RewardTask) => Promise<RoleModel>, dir: string): CalibrationJudge => {
  const judge: CalibrationJudge = {
    name: "code",
    label: "code judge",
    model: modelName,
    notRun: null,
    notes: [],
    forTask: async (task, intent, repeat) => {
      const store = join(dir, "judges", task.id, `repeat-${repeat}`);
      rmSync(store, { recursive: true, force: true });
      const out = await authorJudge({ model: await model(task), intent, task, store });
      judge.notes.push(`${task.id}, repeat ${repeat + 1}: ${out.ok ? out.summary.label : out.label}`);
      if (!out.ok) return async () => ({ score: null, passed: null, note: cut(out.label) });
      return async (record, trajectory) => {
        const j = await judgeTrajectory(out.judge, trajectory, record);
        const fault = j.fault ? { note: cut(`${j.fault.tag}: ${j.fault.message}`) } : {};
        return { score: j.score, passed: j.score >= PASS_THRESHOLD, ...fault, detail: breakdownLines(j) };
      };
    },
  };
  return judge;
};

/** The vision judge where it cannot run: why, printed on the page instead of a score. */
export const visionNotRun = (why: string): CalibrationJudge => ({
  name: "vision",
  label: "vision judge",
  model: null,
  notRun: why,
  notes: [],
  forTask: async () => {
    throw new Error(`bench/judge-calibration-judges.ts: the vision judge is not run (${why})`);
  },
});

/** The synthesis of one episode's code and vision verdicts (levels/reward-search/judging/synthesiser.ts). */
export const synthesisOf = async (
  intent: string,
  record: TrajectoryRecord,
  verdicts: { code?: JudgedEpisode; vision?: JudgedEpisode },
  model: RoleModel,
): Promise<{ verdict: EpisodeVerdict; kind: string }> => {
  const s = await synthesiseJudges(
    {
      intent,
      record,
      code: verdicts.code ? { score: verdicts.code.score, breakdown: verdicts.code.detail ?? [] } : null,
      vision: verdicts.vision ? { score: verdicts.vision.score, assessment: (verdicts.vision.detail ?? []).join("\n") } : null,
    },
    { model, reaskVision: verdicts.vision?.reask ?? (async () => "no vision judge answers in this run") },
    { passThreshold: PASS_THRESHOLD },
  );
  if (s.kind === "none" || s.kind === "disagree") return { verdict: { score: null, passed: null, note: cut(s.rule) }, kind: s.kind };
  return { verdict: { score: s.score, passed: s.passed, note: cut(s.rule) }, kind: synthesisKind(s) };
};

/** How a synthesis was reached, as the page counts it. */
const synthesisKind = (s: Exclude<SynthesisRecord, { kind: "none" | "disagree" }>): string => {
  if (s.kind === "single") return `single (${s.judge} judge alone)`;
  if (s.kind === "agree") return "agree (no model call)";
  if (s.failure !== null) return "settled: synthesiser failed, the code judge's score stands";
  const ran = s.toolCalls.filter((c) => c.status === "ran").length;
  return `settled by the synthesiser (sided with ${s.sidedWith}, ${ran} tool call${ran === 1 ? "" : "s"} run)`;
};
