import { z } from "zod";

/**
 * The reward-search family's contracts (docs/spec/reward-search.md §1): a task is an RL environment plus a fitness F; the actor's
 * action is reward code; a trainer trains a policy on it and reports F. Three parts meet here: the tasks
 * (one file each beside this one), the reward sandbox (src/sandbox) and the trainer (src/trainer).
 */

/** What one seed of a task is: like an Interphyre level at a seed, so the loop's seed stream, pairing and held-out sets work unchanged. */
export const TaskInstance = z.object({
  task: z.string(),
  seed: z.number().int().min(0),
  /** Seed of the training run (policy init, env resets, sampling). */
  trainSeed: z.number().int().min(0),
  /** ≥ 3 evaluation seeds, disjoint from trainSeed (RF-Agent's reference code reused the search seed). */
  evalSeeds: z.array(z.number().int().min(0)).min(3),
  /** Small randomised physical parameters (e.g. pole length, gravity), so that seeds differ. */
  params: z.record(z.string(), z.number()),
});
export type TaskInstance = z.infer<typeof TaskInstance>;

export type ActionSpace = { kind: "discrete"; n: number } | { kind: "continuous"; dim: number; low: readonly number[]; high: readonly number[] };

/** The per-env quantities a reward (and F) may read, by name; one Float64Array of length numEnvs each. */
export type InfoBatch = Record<string, Float64Array>;

export interface StepBatch {
  /** Observations to act on next (numEnvs × obsDim): after an auto-reset for envs that ended. */
  obs: Float64Array;
  /** The true next observation of this transition (before any auto-reset): what a reward reads as nextObs. */
  nextObs: Float64Array;
  /** 1 where the episode ended by the task's own rule (fell, landed, crashed). */
  terminated: Uint8Array;
  /** 1 where the episode hit the time limit. */
  truncated: Uint8Array;
  /** Named per-env quantities of this transition (e.g. x_position, leg_contact), `info` of the reward signature. */
  info: InfoBatch;
  /** This transition's increment of the task fitness F (F of an episode = the sum over its steps). */
  fitness: Float64Array;
}

/**
 * A vectorised environment: numEnvs copies stepped together (flat typed arrays, row per env), auto-reset on
 * termination or truncation. Deterministic for a seed: reset(seed) then the same actions give the same batches.
 */
export interface VecEnv {
  readonly numEnvs: number;
  readonly obsDim: number;
  readonly action: ActionSpace;
  reset(seed: number): Float64Array;
  /** Discrete: numEnvs action indices; continuous: numEnvs × dim values, clipped to [low, high] by the env. */
  step(actions: Int32Array | Float64Array): StepBatch;
  /** Free what the env holds outside the JS heap (MuJoCo's MjData); absent where it holds nothing. */
  close?(): void;
}

export const PpoConfig = z.strictObject({
  numEnvs: z.number().int().min(1).default(8),
  numSteps: z.number().int().min(8).default(128).describe("rollout length per env per iteration"),
  learningRate: z.number().positive().default(2.5e-4),
  annealLr: z.boolean().default(true),
  gamma: z.number().min(0).max(1).default(0.99),
  gaeLambda: z.number().min(0).max(1).default(0.95),
  minibatchSize: z.number().int().min(8).default(256),
  updateEpochs: z.number().int().min(1).default(4),
  clipCoef: z.number().positive().default(0.2),
  entCoef: z.number().min(0).default(0.01),
  vfCoef: z.number().min(0).default(0.5),
  maxGradNorm: z.number().positive().default(0.5),
  normAdv: z.boolean().default(true),
  hidden: z.number().int().min(4).default(64),
});
export type PpoConfig = z.infer<typeof PpoConfig>;

export interface RewardTask {
  /** The file name, e.g. "cartpole". */
  id: string;
  /** One line for listings. */
  title: string;
  /**
   * What a user would paste about the environment: observation and action names with units and ranges, the
   * info fields, termination and time limit, and the goal in words. Never the hand-written reward.
   */
  description: string;
  /** Names of the observation vector's entries, in order (the reward code reads obs.<name>). */
  observation: readonly string[];
  /** Names of the action vector's entries (continuous) or of the discrete choices. */
  actionNames: readonly string[];
  /** Names of the info fields the env reports each step. */
  info: readonly string[];
  fitness: {
    /** What F measures, in words, with its unit. */
    describe: string;
    range: readonly [number, number];
    /** F at or above which the task counts as solved (an episode of the family succeeds). */
    solved: number;
  };
  /** Reward code (the sandbox's JavaScript contract): the sparse baseline of human-normalised scores. */
  sparseReward: string;
  /** Hand-written reward code; null for held-out tasks that have none. */
  humanReward: string | null;
  /** Env steps of a full-budget training, and the PPO settings that budget was measured with. */
  training: { steps: number; ppo: Partial<PpoConfig> };
  /** Time limit of one episode, in env steps. */
  maxEpisodeSteps: number;
  generate(seed: number): TaskInstance;
  /**
   * Load what this task's envs need in the calling thread (MuJoCo's wasm module and model: async, seconds);
   * idempotent; await it before resetting an env of the task. Absent where makeEnv needs nothing loaded.
   */
  prepare?(): Promise<void>;
  /**
   * numEnvs envs; with firstEnv, env i is env firstEnv + i of a larger VecEnv (its random stream), so that a
   * worker thread's share of the envs steps exactly as in one thread (envs/threaded-env.ts). Tasks that run
   * in worker threads honour it; the others may ignore it.
   */
  makeEnv(instance: TaskInstance, numEnvs: number, firstEnv?: number): VecEnv;
}

export const defineTask = (t: RewardTask): RewardTask => t;

/** One batch of transitions as a reward program reads it (actions as numbers: a discrete choice is its index). */
export interface RewardBatchInput {
  n: number;
  obs: Float64Array;
  action: Float64Array;
  nextObs: Float64Array;
  info: InfoBatch;
}

export interface RewardOutput {
  total: Float64Array;
  components: Record<string, Float64Array>;
}

/** Compiled reward code (src/sandbox makes one per candidate; tests may pass a plain function in this shape). */
export interface RewardProgram {
  /** Throws RewardCodeError (src/sandbox) for a run-time fault of the code: exception, timeout, memory, NaN, shape. */
  evaluate(b: RewardBatchInput): RewardOutput;
  dispose(): void;
}
