import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../errors.ts";
import { BankEvent } from "../store/bank.ts";
import { LessonTier, REASON_MAX } from "../store/lesson.ts";
import { appendJsonl, readJsonl, writeJsonAtomic } from "../store/jsonl.ts";
import { takePidLock } from "../store/pid-lock.ts";
import { AddressedCorrection, type CorrectionRecord, PLANNING_LOCK, readCorrections } from "./p2p-corrections.ts";
import { TrainingOutcome } from "./p2p-ports.ts";

/**
 * The lineage of a p2p search (docs/spec/reward-search.md §8.6), in its search directory beside search.json:
 * `plans.jsonl` (per iteration, written before its trainings: the reward, the configurations' hyper-parameters,
 * the revision that made them, how it addressed the user's corrections, the parent), `corrections.jsonl` (the
 * user's corrections, p2p-corrections.ts), `trainings/it<i>-c<c>-s<k>.json` (each training with its judged
 * checkpoints, written when it ends), `iterations.jsonl` (per iteration once its trainings are judged: scores
 * per configuration and seed, the best configuration by its mean over seeds) and `bank-events.jsonl` (the
 * lessons and their tier changes). A search killed at any moment resumes from these: a planned iteration keeps its plan, a finished
 * training is read back, not trained again.
 */

export const P2P_SCHEMA_VERSION = 1;
const int0 = z.number().int().min(0);
const Hp = z.record(z.string(), z.number());
const HpChanges = z.record(z.string(), z.tuple([z.number(), z.number()]));

export const PlanRecord = z.object({
  schemaVersion: z.literal(P2P_SCHEMA_VERSION),
  iteration: int0,
  /** The iteration whose code and hyper-parameters this one starts from; null for the first. */
  parent: int0.nullable(),
  code: z.string(),
  configs: z.array(z.object({ directive: z.string(), hp: Hp })).min(1),
  revision: z.object({
    diagnosis: z.string(),
    lesson: z.string(),
    rewardChanges: z.array(z.string()),
    structural: z.boolean(),
    noChange: z.boolean(),
    hpChanges: HpChanges,
    plateau: z.boolean(),
    note: z.string().optional(),
    /** How this plan answered each correction outstanding when it was made (p2p-corrections.ts); absent with none. */
    corrections: z.array(AddressedCorrection).optional(),
    /** The lesson tier changes the reviser asked for, in order (written to bank-events.jsonl with the plan); absent with none. */
    tierChanges: z.array(z.object({ id: z.string().min(1), from: LessonTier, to: LessonTier, reason: z.string().min(1).max(REASON_MAX) })).optional(),
  }),
});
export type PlanRecord = z.infer<typeof PlanRecord>;

/** The version of the intent's code judge that scored a checkpoint or an iteration; absent for a judge with one version (F). */
const JudgeVersion = z.number().int().min(1).optional();

const JudgedCheckpoint = z.object({ step: int0, fraction: z.number(), score: z.number().min(0).max(1), detail: z.string(), judgeVersion: JudgeVersion });

export const TrainingRecord = z.object({
  schemaVersion: z.literal(P2P_SCHEMA_VERSION),
  iteration: int0,
  config: int0,
  seed: int0,
  hp: Hp,
  outcome: TrainingOutcome,
  judged: z.array(JudgedCheckpoint),
  /** The last checkpoint's score; 0 for a failed training (it counts in its configuration's mean). */
  score: z.number().min(0).max(1),
});
export type TrainingRecord = z.infer<typeof TrainingRecord>;

export const IterationRecord = z.object({
  schemaVersion: z.literal(P2P_SCHEMA_VERSION),
  iteration: int0,
  parent: int0.nullable(),
  configs: z.array(
    z.object({ config: int0, directive: z.string(), hp: Hp, seeds: z.array(int0), scores: z.array(z.number()), mean: z.number(), std: z.number() }),
  ),
  /** The configuration with the highest mean over seeds (the first of equals). */
  best: int0,
  score: z.number(),
  /** Whether it beat every earlier iteration scored by the same judge version. */
  newBest: z.boolean(),
  /** The judge version its trainings' checkpoints were scored by (the highest, should they differ). */
  judgeVersion: JudgeVersion,
});
export type IterationRecord = z.infer<typeof IterationRecord>;

export interface P2pLog {
  /** The search directory the lineage is kept in; absent in memory. */
  readonly dir?: string;
  plans(): PlanRecord[];
  appendPlan(p: PlanRecord): void;
  training(iteration: number, config: number, seed: number): TrainingRecord | undefined;
  writeTraining(t: TrainingRecord): void;
  iterations(): IterationRecord[];
  appendIteration(r: IterationRecord): void;
  bankEvents(): BankEvent[];
  appendBankEvents(es: readonly BankEvent[]): void;
  /** The user's corrections so far (p2p-corrections.ts). */
  corrections(): CorrectionRecord[];
  /** Runs `f` (reading the corrections, planning, writing the plan) while no correction can be added. */
  planning<R>(f: () => Promise<R>): Promise<R>;
}

const trainingName = (i: number, c: number, s: number) => `it${i}-c${c}-s${s}.json`;

/** The lineage files of a search directory (see above). */
export const p2pDirLog = (dir: string): P2pLog => {
  const trainings = join(dir, "trainings");
  const at = (name: string) => join(dir, name);
  return {
    dir,
    plans: () => readJsonl(at("plans.jsonl"), PlanRecord),
    appendPlan: (p) => appendJsonl(at("plans.jsonl"), [PlanRecord.parse(p)]),
    training: (i, c, s) => {
      const path = join(trainings, trainingName(i, c, s));
      if (!existsSync(path)) return undefined;
      const parsed = TrainingRecord.safeParse(JSON.parse(readFileSync(path, "utf8")));
      if (!parsed.success)
        throw new ConfigError(`${path}: ${parsed.error.issues[0]!.path.join(".")}: ${parsed.error.issues[0]!.message}; the file was edited or damaged`);
      return parsed.data;
    },
    writeTraining: (t) => {
      mkdirSync(trainings, { recursive: true });
      writeJsonAtomic(join(trainings, trainingName(t.iteration, t.config, t.seed)), TrainingRecord.parse(t));
    },
    iterations: () => readJsonl(at("iterations.jsonl"), IterationRecord),
    appendIteration: (r) => appendJsonl(at("iterations.jsonl"), [IterationRecord.parse(r)]),
    bankEvents: () => readJsonl(at("bank-events.jsonl"), BankEvent),
    appendBankEvents: (es) => appendJsonl(at("bank-events.jsonl"), es),
    corrections: () => readCorrections(dir),
    planning: async (f) => {
      const release = takePidLock(
        at(PLANNING_LOCK),
        (holder) => `${dir}: another process (${holder}) is planning this search's next iteration or adding a correction; wait for it, or stop it`,
      );
      try {
        return await f();
      } finally {
        release();
      }
    },
  };
};

/** The same lineage in memory (tests). */
export const memoryP2pLog = (): P2pLog & { trainingWrites: TrainingRecord[]; addCorrection(c: CorrectionRecord): void } => {
  const plans: PlanRecord[] = [];
  const iterations: IterationRecord[] = [];
  const events: BankEvent[] = [];
  const trainings = new Map<string, TrainingRecord>();
  const trainingWrites: TrainingRecord[] = [];
  const corrections: CorrectionRecord[] = [];
  return {
    trainingWrites,
    addCorrection: (c) => void corrections.push(c),
    corrections: () => [...corrections],
    planning: (f) => f(),
    plans: () => [...plans],
    appendPlan: (p) => void plans.push(PlanRecord.parse(p)),
    training: (i, c, s) => trainings.get(trainingName(i, c, s)),
    writeTraining: (t) => {
      trainingWrites.push(t);
      trainings.set(trainingName(t.iteration, t.config, t.seed), TrainingRecord.parse(t));
    },
    iterations: () => [...iterations],
    appendIteration: (r) => void iterations.push(IterationRecord.parse(r)),
    bankEvents: () => [...events],
    appendBankEvents: (es) => void events.push(...es),
  };
};
