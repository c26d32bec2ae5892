/**
 * The p2p strategy's checkpoint judge for an intent (docs/guides/prompt-to-policy.md): a task from words has no F,
 * so each checkpoint's kept policy is rolled out on the same judged seeds and judged as `hexa judge` judges a
 * policy (cli/judge-run.ts `judgePolicy`, the same code): the code judge authored for the intent and stored in
 * the search directory, the vision judge over the rendered frames when a vision model is given, and their
 * synthesis (the code judge fixed before the search: prepareIntent). The checkpoint's score is the mean synthesised score over its distinct picked episodes (with one
 * judged seed, that episode's). Each judgment is kept in `judgments/it<i>-c<c>-s<seed>-step<n>/` (p2p-judgment-folder.ts).
 */
import { join } from "node:path";
import type { RoleModel } from "../../../src/llm/ask.ts";
import type { CheckpointJudge } from "../../../src/search/p2p-ports.ts";
import type { JudgmentFile } from "../cli/judge-file.ts";
import { judgePolicy } from "../cli/judge-run.ts";
import type { SynthesisRecord } from "../judging/synthesis.ts";
import type { VisionLimits } from "../judging/vision-judge.ts";
import type { RewardTask } from "../task.ts";
import { codeJudgeVersions } from "./p2p-code-judge.ts";
import { checkpointJudgmentName } from "./p2p-judgment-folder.ts";
import { correctionsForJudges, readCorrections } from "../../../src/search/p2p-corrections.ts";

/** What judges an intent: llm.judge (authors the code judge, settles disagreements) and, optionally, llm.vision. */
export interface IntentModels {
  judge: RoleModel;
  vision?: { model: RoleModel; limits: VisionLimits; trail: boolean };
}

export interface IntentJudging {
  intent: string;
  /** The judged score at which the search passes. */
  passAt: number;
  /** The judged episodes' reset seeds: the same for every checkpoint, so checkpoints are compared on the same episodes. */
  seeds: readonly number[];
  /** Steps per judged episode at most (default: the env's own time limit). */
  maxSteps?: number;
  /** The search directory: judges/ and vision-criteria/ (one per intent), judgments/ (each checkpoint's judgment). */
  dir: string;
}

/** The label every score of this judge carries. */
const intentJudgeLabel = (vision: boolean): string =>
  `intent judge (code judge${vision ? ", vision judge and synthesiser" : " alone"}; a judged score of the words, not a fitness)`;

const f2 = (x: number) => x.toFixed(2);

/** A synthesis's score: the agreed, settled or single score; an unsettled disagreement counts the lower of the two. */
const synthesisScore = (s: SynthesisRecord | { kind: "single"; score: number }): number => {
  switch (s.kind) {
    case "agree":
    case "single":
    case "settled":
      return s.score;
    case "disagree":
      return Math.min(s.code, s.vision);
    case "none":
      return 0;
  }
};

/** The checkpoint's score (mean over distinct picked episodes) and a one-line detail per episode. */
export const checkpointScore = (file: JudgmentFile, where: string): { score: number; detail: string } => {
  const seen = new Map<number, { score: number; text: string }>();
  for (const p of file.picks) {
    if (seen.has(p.seed)) continue;
    const score = synthesisScore(p.synthesis);
    const vision = p.vision?.kind === "verdict" ? `, vision ${f2(p.vision.score)}` : p.vision ? `, vision failed (${p.vision.stage})` : "";
    seen.set(p.seed, { score, text: `seed ${p.seed}: code ${f2(p.score)}${vision} → ${f2(score)} (${p.synthesis.kind})` });
  }
  const scores = [...seen.values()];
  const score = scores.reduce((a, s) => a + s.score, 0) / scores.length;
  return { score, detail: `${scores.map((s) => s.text).join("; ")}; judgment in ${where}` };
};

/**
 * The intent's checkpoint judge. Judgments run one at a time (each renders and rolls out on its own); a
 * checkpoint whose policy was not kept scores 0, labelled. Each iteration is judged by the code judge version
 * authored with the corrections it weighs (p2p-code-judge.ts), named in every score's detail; `note` hears of a
 * version authored or an authoring that failed.
 */
export const intentCheckpointJudge = (
  task: RewardTask,
  j: IntentJudging,
  m: IntentModels,
  note: (line: string) => void = () => {},
): CheckpointJudge<RewardTask> => {
  let queue: Promise<unknown> = Promise.resolve();
  const versionFor = codeJudgeVersions(task, j.intent, j.dir, m.judge);
  const one = async (policy: string, where: string, iteration: number, corrections: string) => {
    const code = await versionFor(iteration, corrections);
    if (code.note) note(code.note);
    const out = await judgePolicy({
      task: task.id,
      policy,
      episodes: j.seeds.length,
      seeds: j.seeds,
      out: join(j.dir, where),
      force: true,
      intent: j.intent,
      judge: code.file,
      ...(j.maxSteps === undefined ? {} : { maxSteps: j.maxSteps }),
      author: { store: j.dir, model: async () => m.judge },
      ...(m.vision
        ? {
            vision: {
              trail: m.vision.trail,
              model: async () => ({ model: m.vision!.model, limits: m.vision!.limits }),
              ...(corrections ? { corrections } : {}),
            },
          }
        : {}),
      criteriaDir: j.dir,
    });
    const score = checkpointScore(out.file, where);
    return { score: score.score, detail: `${score.detail}; code judge v${code.version}`, judgeVersion: code.version };
  };
  return {
    label: intentJudgeLabel(m.vision !== undefined),
    passAt: j.passAt,
    judge: (_task, cp, t) => {
      if (cp.policy === undefined) return Promise.resolve({ score: 0, detail: "no policy was kept at this checkpoint; not judged" });
      const where = checkpointJudgmentName(t.iteration, t.config, t.seed, cp.step);
      // The corrections its plan had to address: a replay, holding every later one too, weighs the same.
      const corrections = correctionsForJudges(readCorrections(j.dir).filter((c) => c.iteration <= t.iteration));
      const next = queue.then(() => one(cp.policy!, where, t.iteration, corrections));
      queue = next.catch(() => undefined);
      return next;
    },
  };
};
