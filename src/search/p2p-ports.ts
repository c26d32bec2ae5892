import { z } from "zod";
import type { Lesson, LessonTier } from "../store/lesson.ts";
import type { AddressedCorrection, CorrectionRecord } from "./p2p-corrections.ts";
import type { IterationRecord, PlanRecord, TrainingRecord } from "./p2p-log.ts";
import type { Rng } from "../util/rng.ts";

/**
 * The ports of the p2p strategy (p2p.ts): a trainer that trains one reward with given hyper-parameters on one
 * seed and reports its checkpoints, a judge that scores a checkpoint 0–1, and a reviser that writes the next
 * iteration's reward and hyper-parameters. A family supplies them (reward search: the trainer pool, the fitness
 * judge, the heuristic or the LLM reviser). `T` is the family's task and `I` its instance, opaque here.
 */

/** Hyper-parameters by name (a family's trainer settings, e.g. PPO's learningRate). */
export type HpSet = Readonly<Record<string, number>>;

/** The hyper-parameters a reviser may change, each within [low, high], and their values before any change. */
export interface HpSpace {
  readonly bounds: Readonly<Record<string, readonly [number, number]>>;
  readonly base: HpSet;
}

/** The extra configurations of an iteration, each asked with one directive (Prompt-to-Policy's wording). */
export const HP_DIRECTIVES = ["different", "conservative", "aggressive", "balanced"] as const;
export type HpDirective = (typeof HP_DIRECTIVES)[number];

/** A training's optimiser diagnostics, as far as its trainer reports them (null: not reported). */
export const Diagnostics = z.object({
  approxKl: z.number().nullable(),
  clipFrac: z.number().nullable(),
  entropy: z.number().nullable(),
  explainedVariance: z.number().nullable(),
});
export type Diagnostics = z.infer<typeof Diagnostics>;

/** A checkpoint of one training: where it is (env steps, share of the training) and what the judge reads. */
export const CheckpointPoint = z.object({
  step: z.number().int().min(0),
  /** Its share of the training's steps, 0–1. */
  fraction: z.number().min(0).max(1),
  /** The task's fitness of the policy at this checkpoint (mean over the evaluation seeds); null where the trainer has none. */
  fitness: z.number().nullable(),
  /** Per evaluation seed, where known (the final checkpoint). */
  perSeed: z.array(z.number()).optional(),
  /** The policy file at this checkpoint, where the trainer kept it (a judge that rolls the policy out reads it). */
  policy: z.string().optional(),
});
export type CheckpointPoint = z.infer<typeof CheckpointPoint>;

export const TrainingOutcome = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("result"),
    steps: z.number().int().min(0),
    /** The judged checkpoints, in order (25/50/75/100 % of the training, or the nearest the trainer evaluated). */
    checkpoints: z.array(CheckpointPoint).min(1),
    diagnostics: Diagnostics.nullable(),
    /** Mean absolute value of each reward term over the training's last window. */
    terms: z.record(z.string(), z.number()),
    /** What the reviser is shown of the training (a reward reflection). */
    feedback: z.string(),
    cached: z.boolean(),
  }),
  z.object({ kind: z.literal("error"), error: z.string(), message: z.string(), feedback: z.string() }),
]);
export type TrainingOutcome = z.infer<typeof TrainingOutcome>;

interface HpTrainRequest<T, I> {
  task: T;
  instance: I;
  code: string;
  hp: HpSet;
  seed: number;
  /** A readable name of the training (job labels). */
  label: string;
}

export interface HpTrainer<T, I> {
  train(req: HpTrainRequest<T, I>): Promise<TrainingOutcome>;
}

/** A judge's answer on one checkpoint. */
interface CheckpointJudgment {
  /** 0–1. */
  score: number;
  detail: string;
  /** The version of the intent's code judge that scored it (p2p-code-judge.ts); absent for a judge with one version. */
  judgeVersion?: number;
}

/** Which training a judged checkpoint belongs to (a judge that keeps files names them by it). */
interface TrainingRef {
  iteration: number;
  config: number;
  seed: number;
}

/** Scores a checkpoint 0–1 (the fitness judge on tasks with F; the code, vision and synthesised judges for intents). */
export interface CheckpointJudge<T> {
  /** Shown in outputs and recorded: what the score measures. */
  readonly label: string;
  /** The judged score at which the search passes when the config sets none. */
  readonly passAt: number;
  judge(task: T, checkpoint: CheckpointPoint, training: TrainingRef): Promise<CheckpointJudgment>;
}

/** One row of an iteration's checkpoint table: a configuration at one checkpoint, over its seeds. */
export interface CheckpointRow {
  config: number;
  fraction: number;
  mean: number;
  std: number;
  /** Share of seeds whose score at this checkpoint reached the pass threshold. */
  successRate: number;
}

/** An iteration as the reviser sees it. */
export interface IterationView {
  iteration: number;
  parent: number | null;
  code: string;
  /** The hyper-parameters of its best configuration (what a branch from it restores). */
  hp: HpSet;
  /** The best configuration's mean last-checkpoint score over seeds; null when every training failed. */
  score: number | null;
  /** What changed, in the reviser's words. */
  changes: string;
}

/**
 * What a reviser may read of its own search (the LLM reviser's read tools): the lineage so far, each training of
 * it, and every lesson of the bank, retired ones included, with its history. Read from the search's own state only.
 */
export interface LineageReads {
  plans: readonly PlanRecord[];
  /** The judged iterations, 0 … the iteration being planned − 1. */
  iterations: readonly IterationRecord[];
  training(iteration: number, config: number, seed: number): TrainingRecord | undefined;
  lessons: readonly Lesson[];
  passAt: number;
  /** The search's own directory, where an intent judge keeps each judged checkpoint's folder; absent for a lineage in memory. */
  dir?: string;
}

export interface ReviseContext<T, I> {
  task: T;
  instance: I;
  /** The iteration being planned. */
  iteration: number;
  current: IterationView;
  best: IterationView;
  history: readonly IterationView[];
  table: readonly CheckpointRow[];
  /** The current iteration's best configuration (by its mean over seeds). */
  bestConfig: number;
  /** The configurations of the current iteration, by index, with their hyper-parameters and mean diagnostics. */
  configs: readonly { config: number; hp: HpSet; diagnostics: Diagnostics | null }[];
  /** Guardrail warnings (a dominant term, a plateau), each a sentence. */
  guardrails: readonly string[];
  /** HP rules that fire on the current best configuration's diagnostics, each a sentence naming its change. */
  hpHints: readonly string[];
  /** Reflections of the current best configuration's trainings (one per seed). */
  feedback: string;
  /** Iterations since the last new best. */
  sinceBest: number;
  /** Whether a structural rewrite is required (sinceBest ≥ the plateau). */
  plateau: boolean;
  space: HpSpace;
  /** Every lesson of the bank, retired ones with their history (a prompt shows the retired with their reasons). */
  lessons: readonly Lesson[];
  /** The user's corrections this revision must address, each by its index (p2p-corrections.ts). */
  corrections: readonly CorrectionRecord[];
  seen: ReadonlySet<string>;
  rng: Rng;
  lineage: LineageReads;
}

/** Who a tier change the reviser asked for is recorded as (bank-events.jsonl's `by`). */
export const P2P_REVISER_BY = "p2p reviser";

/** A lesson's tier change the reviser asked for with its reason; applied as a bank event with the plan (p2p.ts). */
export interface TierChange {
  id: string;
  from: LessonTier;
  to: LessonTier;
  reason: string;
}

/** The reviser's answer, as checked (p2p-revision.ts). */
export interface Revision {
  diagnosis: string;
  lesson: string;
  /** The iteration whose code and hyper-parameters this one starts from. */
  basedOn: number;
  /** The planned reward changes, 1–2 (any number with a structural rewrite); empty with noChange. */
  rewardChanges: string[];
  structural: boolean;
  noChange: boolean;
  code: string;
  hpChanges: Record<string, readonly [number, number]>;
  note?: string;
  /** How it addressed each outstanding correction (read false: a reviser that cannot read words says so); absent with none. */
  corrections?: AddressedCorrection[];
  /** The lesson tier changes it asked for, in order; absent with none. */
  tierChanges?: TierChange[];
}

interface InitialContext<T, I> {
  task: T;
  instance: I;
  space: HpSpace;
  lessons: readonly Lesson[];
  rng: Rng;
}

export interface Reviser<T, I> {
  readonly label: string;
  /** The first iteration's reward. */
  initial(ctx: InitialContext<T, I>): Promise<{ code: string; thought: string }>;
  revise(ctx: ReviseContext<T, I>): Promise<Revision>;
  /** One hyper-parameter variant of `hp` per directive: the changes, each field within the space's bounds. */
  variants(
    ctx: { task: T; space: HpSpace; hp: HpSet; hpHints: readonly string[]; rng: Rng },
    directives: readonly HpDirective[],
  ): Promise<Record<string, readonly [number, number]>[]>;
}
