/**
 * CleanRL-style PPO (ppo.py / ppo_continuous_action.py) on typed-array kernels, read top to bottom as
 * CleanRL's script: arguments, setup, then per iteration rollout → reward → GAE → update → logging. Vectorised
 * envs, GAE, per-minibatch advantage normalisation, clipped surrogate, clipped value loss, entropy bonus, global
 * gradient-norm clipping, Adam (eps 1e-5) with linear learning-rate annealing.
 *
 * Where the parts live: the rollout and its buffers (rollout.ts), the update's epochs of shuffled minibatches
 * (ppo-update.ts), the network's forward and backward passes (actor-critic.ts, on the SIMD matrix product of
 * wasm/kernels.as.ts), the PPO loss's gradient on a minibatch (ppo-gradient.ts), Adam on flat θ (adam.ts), the
 * observation and reward normalisers (normalisers.ts), GAE and advantage normalisation (advantages.ts), the
 * policy's layout, sampling and saved form (policy.ts), the reward program over a rollout (reward-batches.ts),
 * checkpoint evaluations (evaluate.ts), the curves between checkpoints (training-record.ts).
 *
 * Kept lean: θ is one flat Float32Array; the rollout's inference and each minibatch's update are one kernel call
 * each over buffers allocated once per training (none per step or per minibatch); the reward program is called
 * after each rollout on all its T × N transitions (a few sandbox crossings per iteration, not one per step).
 *
 * Choices that differ from CleanRL, on purpose:
 * - Truncation (time limit) is bootstrapped: r_t += γ·V(s_{t+1}) with the true next observation, then the
 *   episode is cut for GAE. CleanRL treats truncation like termination, which makes the value of a state depend
 *   on an unobserved clock (CartPole's 500-step cap).
 * - Observation and reward normalisation (gym NormalizeObservation / NormalizeReward, clip ±10, as CleanRL's
 *   continuous script) default to on for continuous actions and off for discrete ones; see TrainerOptions.
 */
import { z } from "zod";
import { PpoConfig, type RewardProgram, type RewardTask, type TaskInstance, type VecEnv } from "../task.ts";
import { ActorCritic } from "./actor-critic.ts";
import { FlatAdam } from "./adam.ts";
import { explainedVariance, gae } from "./advantages.ts";
import { checkpointIterations, evaluateGreedy } from "./evaluate.ts";
import { RewardScaler, RunningNorm } from "./normalisers.ts";
import { initParams, type PolicyLayout, policyLayout, serializePolicy, type SerializedPolicy } from "./policy.ts";
import { PpoUpdate, type UpdateLosses } from "./ppo-update.ts";
import type { LossDiagnostics } from "./protocol.ts";
import { evaluateChunked, TrainingDivergedError } from "./reward-batches.ts";
import { type EndedEpisodes, Rollout } from "./rollout.ts";
import { type ComponentStats, TrainingRecord } from "./training-record.ts";
import { xoshiro128ss, type FastRng as Rng } from "../../../src/util/rng.ts";
import { mean } from "../../../src/util/stats.ts";
import { openThreadedEnv } from "../envs/threaded-env.ts";

/** Trainer settings outside PpoConfig (algorithm variants rather than budget-tuned numbers). */
const TrainerOptions = z.strictObject({
  clipValueLoss: z.boolean().default(true).describe("clip the value loss around the rollout's values (CleanRL clip_vloss)"),
  normalizeObs: z.boolean().optional().describe("running mean/std observation normalisation; default: on for continuous actions"),
  normalizeReward: z.boolean().optional().describe("scale rewards by the running std of the discounted return; default: on for continuous actions"),
  sharedNetwork: z.boolean().default(false).describe("one 2×hidden trunk with policy and value heads instead of two MLPs"),
  checkpoints: z.number().int().min(1).default(10).describe("deterministic evaluations on the eval seeds during training (the last is the final policy)"),
  envWorkers: z.number().int().min(1).max(64).default(1).describe("threads stepping a MuJoCo task's envs (one wasm instance each); same results"),
});
type TrainerOptions = z.infer<typeof TrainerOptions>;

export interface TrainProgress {
  iteration: number;
  steps: number;
  /** Mean F of the training episodes that finished in this iteration; null if none did. */
  fitness: number | null;
  episodeLength: number | null;
  /** Mean return (the reward program's sum, before normalisation) of those episodes: CleanRL's charts/episodic_return. */
  episodeReturn: number | null;
  /** How many training episodes ended in this iteration (the weight of the means above). */
  episodes: number;
  components: Record<string, ComponentStats>;
  /**
   * CleanRL's losses/* of this iteration's update (protocol.ts LossDiagnostics, every field present): the
   * losses, entropy and approx_kl of its last minibatch (before that minibatch's step), clipfrac averaged over
   * all its minibatches, explained_variance of the rollout's values for its returns; null where not finite.
   */
  losses: Required<LossDiagnostics>;
}

export interface TrainRequest {
  task: RewardTask;
  instance: TaskInstance;
  reward: RewardProgram;
  /** Env-step budget; training runs floor(steps / (numEnvs × numSteps)) iterations (at least one). */
  steps: number;
  seed: number;
  evalSeeds: number[];
  ppo?: Partial<PpoConfig>;
  options?: Partial<TrainerOptions>;
  signal?: AbortSignal;
  onProgress?: (p: TrainProgress) => void;
  /** Called with the policy at each checkpoint evaluation (its env steps so far), e.g. to keep it. */
  onCheckpoint?: (step: number, policy: SerializedPolicy) => void;
}

export interface TrainResult {
  /** F of the final policy: deterministic (argmax / mean) actions, one episode per eval seed on a fresh env. */
  final: { fitness: number; perSeed: number[] };
  /** Best of the checkpoint evaluations (same seeds, same rule): labelled as such, never the reported score. */
  bestCheckpoint: { fitness: number; step: number };
  /** Per reward component: mean, min, max over each window between checkpoints (Eureka's reward reflection). */
  components: Record<string, Array<{ step: number } & ComponentStats>>;
  /** Mean length of the training episodes that finished in each window. */
  episodeLength: Array<{ step: number; mean: number }>;
  /** The checkpoint evaluations (mean F over the eval seeds). */
  fitnessCurve: Array<{ step: number; fitness: number }>;
  steps: number;
  wallMs: number;
  /** Where the wall time went (ms): rollout (policy inference + env), reward program, PPO update, checkpoint evaluations. */
  timing: { rolloutMs: number; rewardMs: number; updateMs: number; evalMs: number; updates: number };
  policy: SerializedPolicy;
}

// ---------------------------------------------------------------- pure pieces

/** CleanRL's linear annealing: lr · (1 − iteration / numIterations) for iteration = 0, 1, …. */
export const lrAt = (iteration: number, numIterations: number, lr: number, anneal: boolean): number => (anneal ? lr * (1 - iteration / numIterations) : lr);

const abortError = (signal: AbortSignal): Error => {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const e = new Error(typeof reason === "string" ? reason : "training cancelled");
  e.name = "AbortError";
  return e;
};

const finiteOrNull = (x: number | null | undefined): number | null => (x !== null && x !== undefined && Number.isFinite(x) ? x : null);

/** TrainProgress.losses of one update, with the explained variance of the rollout's values for its returns. */
const lossDiagnostics = (u: UpdateLosses, values: Float64Array, returns: Float64Array): Required<LossDiagnostics> => ({
  policyLoss: finiteOrNull(u.last?.policyLoss),
  valueLoss: finiteOrNull(u.last?.valueLoss),
  entropy: finiteOrNull(u.last?.entropy),
  approxKl: finiteOrNull(u.last?.approxKl),
  clipFrac: finiteOrNull(u.clipFracSum / u.minibatches),
  explainedVariance: finiteOrNull(explainedVariance(values, returns)),
});

type Phase = "rolloutMs" | "rewardMs" | "updateMs" | "evalMs";

/** TrainResult.timing: lap(phase) adds the time since the last mark (or lap) to the phase. */
class PhaseTimer {
  readonly timing = { rolloutMs: 0, rewardMs: 0, updateMs: 0, evalMs: 0, updates: 0 };
  private markMs = performance.now();

  mark(): void {
    this.markMs = performance.now();
  }

  lap(phase: Phase): void {
    const now = performance.now();
    this.timing[phase] += now - this.markMs;
    this.markMs = now;
  }
}

// ---------------------------------------------------------------- training

/** One training's settings, env, agent, optimiser and storage, made once before its first iteration. */
interface Training {
  req: TrainRequest;
  cfg: PpoConfig;
  numIterations: number;
  checkpoints: Set<number>;
  env: VecEnv;
  layout: PolicyLayout;
  norm: RunningNorm | null;
  scaler: RewardScaler | null;
  adam: FlatAdam;
  rollout: Rollout;
  update: PpoUpdate;
  record: TrainingRecord;
  timer: PhaseTimer;
  /** Env steps taken so far. */
  steps: number;
  /** F per eval seed of the latest checkpoint evaluation. */
  lastEval: number[];
}

/** A rollout scored: its reward components, the returns of the episodes that ended, and GAE's outputs. */
interface ScoredRollout {
  components: Record<string, Float64Array>;
  episodeReturns: number[];
  advantages: Float64Array;
  returns: Float64Array;
}

/** CleanRL's arguments and setup: the derived sizes, the env, the seeding, the agent, the optimiser, the storage. */
const setUpTraining = async (req: TrainRequest): Promise<Training> => {
  const { task, instance } = req;
  const cfg = PpoConfig.parse({ ...task.training.ppo, ...req.ppo });
  const opt = TrainerOptions.parse(req.options ?? {});
  const N = cfg.numEnvs,
    B = N * cfg.numSteps;
  const numIterations = Math.max(1, Math.floor(req.steps / B));
  const mbSize = Math.min(cfg.minibatchSize, B);
  const checkpoints = checkpointIterations(numIterations, opt.checkpoints);
  // Only tasks with an engine to load (MuJoCo) step in workers: a classic env's step costs less than the hand-off.
  const env: VecEnv =
    opt.envWorkers > 1 && N > 1 && task.prepare ? await openThreadedEnv({ task, instance, numEnvs: N, workers: opt.envWorkers }) : task.makeEnv(instance, N);
  const continuous = env.action.kind === "continuous";
  const layout = policyLayout({ obsDim: env.obsDim, action: env.action, hidden: cfg.hidden, shared: opt.sharedNetwork });
  const rng: Rng = xoshiro128ss(req.seed); // the run's only generator: init, sampling, shuffles
  const norm = (opt.normalizeObs ?? continuous) ? new RunningNorm(env.obsDim) : null;
  const scaler = (opt.normalizeReward ?? continuous) ? new RewardScaler(N, cfg.gamma) : null;
  const adam = new FlatAdam(layout, initParams(layout, rng), { ...cfg, clipValueLoss: opt.clipValueLoss }, mbSize);
  const rollout = new Rollout(env, new ActorCritic(layout, N), layout, rng, norm, cfg.gamma, cfg.numSteps);
  const update = new PpoUpdate(cfg, rng, env.obsDim, rollout.actionDim, B, mbSize);
  rollout.reset(req.seed);
  const timer = new PhaseTimer();
  return {
    req,
    cfg,
    numIterations,
    checkpoints,
    env,
    layout,
    norm,
    scaler,
    adam,
    rollout,
    update,
    record: new TrainingRecord(),
    timer,
    steps: 0,
    lastEval: [],
  };
};

/** The reward program on the whole rollout, the ended episodes' returns, then reward normalisation, the truncation bootstrap and GAE. */
const scoreRollout = (t: Training, nextValue: Float64Array): ScoredRollout => {
  const { cfg, env, rollout: r } = t;
  const B = r.values.length;
  const out = evaluateChunked(t.req.reward, { n: B, obs: r.rawObs, action: r.rewardActions, nextObs: r.nextObs, info: r.info }, env.obsDim, r.actionDim);
  const rewards = Float64Array.from(out.total);
  const episodeReturns = r.episodeReturns(rewards);
  if (t.scaler) t.scaler.apply(rewards, r.terminated, cfg.numSteps);
  for (let i = 0; i < B; i++) rewards[i]! += r.bootstrap[i]!;
  const { advantages, returns } = gae({
    rewards,
    values: r.values,
    dones: r.dones,
    nextValue,
    numSteps: cfg.numSteps,
    numEnvs: env.numEnvs,
    gamma: cfg.gamma,
    lambda: cfg.gaeLambda,
  });
  return { components: out.components ?? {}, episodeReturns, advantages, returns };
};

/** Logging: the iteration's components and episodes into the record, then its progress to the caller. */
const reportIteration = (t: Training, iteration: number, ended: EndedEpisodes, scored: ScoredRollout, losses: UpdateLosses): void => {
  const components = t.record.addIteration(scored.components, ended.length);
  const lossDiag = lossDiagnostics(losses, t.rollout.values, scored.returns);
  t.req.onProgress?.({
    iteration,
    steps: t.steps,
    fitness: ended.fitness.length ? mean(ended.fitness) : null,
    episodeLength: ended.length.length ? mean(ended.length) : null,
    episodeReturn: scored.episodeReturns.length ? mean(scored.episodeReturns) : null,
    episodes: scored.episodeReturns.length,
    components,
    losses: lossDiag,
  });
};

/** A checkpoint: F of the greedy policy on the eval seeds, which closes the record's window. */
const evaluateCheckpoint = (t: Training): void => {
  t.timer.mark();
  t.lastEval = evaluateGreedy(t.req.task, t.req.instance, t.layout, t.adam.theta, t.norm, t.req.evalSeeds);
  t.timer.lap("evalMs");
  t.record.checkpoint(t.steps, t.lastEval);
  t.req.onCheckpoint?.(t.steps, serializePolicy(t.layout, t.adam.theta, t.norm));
};

/** One iteration: rollout → reward → GAE → update → logging, then a checkpoint evaluation where one is due. */
const trainIteration = async (t: Training, iteration: number): Promise<void> => {
  const { req, cfg, timer } = t;
  if (req.signal?.aborted) throw abortError(req.signal);
  const lr = lrAt(iteration, t.numIterations, cfg.learningRate, cfg.annealLr);
  const ended: EndedEpisodes = { fitness: [], length: [] };
  timer.mark();
  const nextValue = t.rollout.collect(t.adam.theta, ended);
  t.steps += t.rollout.values.length;
  timer.lap("rolloutMs");
  const scored = scoreRollout(t, nextValue);
  timer.lap("rewardMs");
  const losses = t.update.run(t.adam, t.rollout, scored.advantages, scored.returns, lr);
  timer.timing.updates += losses.minibatches;
  timer.lap("updateMs");
  if (!t.adam.theta.every(Number.isFinite))
    throw new TrainingDivergedError(
      `reward: training diverged at step ${t.steps} (policy weights became NaN or infinite); keep reward terms bounded (e.g. |r| ≤ 100 per step)`,
    );
  reportIteration(t, iteration, ended, scored, losses);
  if (t.checkpoints.has(iteration)) evaluateCheckpoint(t);
  // Let a pending abort (timer, parent message) reach the signal between iterations.
  await new Promise<void>((r) => setImmediate(r));
};

export const trainPpo = async (req: TrainRequest): Promise<TrainResult> => {
  const t0 = performance.now();
  if (req.signal?.aborted) throw abortError(req.signal);
  const t = await setUpTraining(req);
  try {
    for (let it = 0; it < t.numIterations; it++) await trainIteration(t, it);
  } finally {
    t.env.close?.();
  }
  return {
    final: { fitness: mean(t.lastEval), perSeed: t.lastEval },
    bestCheckpoint: t.record.best(),
    ...t.record.curves,
    steps: t.steps,
    wallMs: performance.now() - t0,
    timing: t.timer.timing,
    policy: serializePolicy(t.layout, t.adam.theta, t.norm),
  };
};
