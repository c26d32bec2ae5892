/**
 * CleanRL-style PPO (ppo.py / ppo_continuous_action.py) on typed-array kernels, read top to bottom as
 * CleanRL's script: arguments, setup, then per iteration rollout → reward → GAE → update → logging. Vectorised
 * envs, GAE, per-minibatch advantage normalisation, clipped surrogate, clipped value loss, entropy bonus, global
 * gradient-norm clipping, Adam (eps 1e-5) with linear learning-rate annealing.
 *
 * Where the parts live: the network's forward and backward passes (actor-critic.ts, on the SIMD matrix product
 * of wasm/kernels.as.ts), the PPO loss's
 * gradient on a minibatch (ppo-gradient.ts), Adam on flat θ (adam.ts), the observation and reward normalisers
 * (normalisers.ts), GAE and advantage normalisation (advantages.ts), the policy's layout, sampling and saved form
 * (policy.ts), the reward program over a rollout (reward-batches.ts), checkpoint evaluations (evaluate.ts).
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
import { explainedVariance, gae, normalizeAdvantages } from "./advantages.ts";
import { checkpointIterations, evaluateGreedy } from "./evaluate.ts";
import { RewardScaler, RunningNorm } from "./normalisers.ts";
import { initParams, policyLayout, sampleActions, serializePolicy, type SerializedPolicy } from "./policy.ts";
import type { Minibatch, MinibatchLosses } from "./ppo-gradient.ts";
import type { LossDiagnostics } from "./protocol.ts";
import { evaluateChunked, TrainingDivergedError } from "./reward-batches.ts";
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

interface ComponentStats {
  mean: number;
  min: number;
  max: number;
}

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

const stats = (x: Float64Array): ComponentStats => {
  let s = 0,
    lo = Infinity,
    hi = -Infinity;
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    s += v;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return { mean: s / x.length, min: lo, max: hi };
};

// ---------------------------------------------------------------- training

export const trainPpo = async (req: TrainRequest): Promise<TrainResult> => {
  const t0 = performance.now();
  const { task, instance, reward, signal } = req;
  if (signal?.aborted) throw abortError(signal);
  // ---- arguments, and the values derived from them (once)
  const cfg = PpoConfig.parse({ ...task.training.ppo, ...req.ppo });
  const opt = TrainerOptions.parse(req.options ?? {});
  const N = cfg.numEnvs,
    T = cfg.numSteps,
    B = N * T;
  const numIterations = Math.max(1, Math.floor(req.steps / B));
  const mbSize = Math.min(cfg.minibatchSize, B);
  const numMb = Math.floor(B / mbSize);
  const checkpoints = checkpointIterations(numIterations, opt.checkpoints);

  // ---- env, seeding, agent and optimiser
  // Only tasks with an engine to load (MuJoCo) step in workers: a classic env's step costs less than the hand-off.
  const env: VecEnv =
    opt.envWorkers > 1 && N > 1 && task.prepare ? await openThreadedEnv({ task, instance, numEnvs: N, workers: opt.envWorkers }) : task.makeEnv(instance, N);
  const d = env.obsDim,
    space = env.action;
  const continuous = space.kind === "continuous";
  const aDim = continuous ? space.dim : 1;
  const layout = policyLayout({ obsDim: d, action: space, hidden: cfg.hidden, shared: opt.sharedNetwork });
  const rng: Rng = xoshiro128ss(req.seed); // the run's only generator: init, sampling, shuffles
  const norm = (opt.normalizeObs ?? continuous) ? new RunningNorm(d) : null;
  const scaler = (opt.normalizeReward ?? continuous) ? new RewardScaler(N, cfg.gamma) : null;
  const adam = new FlatAdam(layout, initParams(layout, rng), { ...cfg, clipValueLoss: opt.clipValueLoss }, mbSize);
  const theta = adam.theta; // updated in place by each step
  const net = new ActorCritic(layout, N); // the rollout's inference

  // ---- storage: rollout buffers, row t·N + e
  const obsBuf = new Float64Array(B * d),
    rawObs = new Float64Array(B * d),
    nextObsBuf = new Float64Array(B * d);
  const actBuf = new Float64Array(B * aDim),
    rewAct = new Float64Array(B * aDim);
  const logpBuf = new Float64Array(B),
    valBuf = new Float64Array(B),
    bootBuf = new Float64Array(B);
  const doneBuf = new Uint8Array(B),
    termBuf = new Uint8Array(B);
  const infoBuf: Record<string, Float64Array> = {};
  const stepActs = new Float64Array(N * aDim),
    stepLogp = new Float64Array(N),
    stepObs = new Float64Array(N * d);
  const fitAcc = new Float64Array(N),
    lenAcc = new Float64Array(N),
    retAcc = new Float64Array(N);
  const mb: Minibatch = {
    size: mbSize,
    obs: new Float64Array(mbSize * d),
    actions: new Float64Array(mbSize * aDim),
    oldLogp: new Float64Array(mbSize),
    adv: new Float64Array(mbSize),
    returns: new Float64Array(mbSize),
    oldValue: new Float64Array(mbSize),
  };
  const advMb = new Float64Array(mbSize);
  const perm = new Int32Array(B);
  const clip = (j: number, v: number) => (continuous ? Math.max(space.low[j]!, Math.min(space.high[j]!, v)) : v);

  const result: Omit<TrainResult, "final" | "bestCheckpoint" | "steps" | "wallMs" | "timing" | "policy"> = {
    components: {},
    episodeLength: [],
    fitnessCurve: [],
  };
  let windowComp: Record<string, { sum: number; n: number; min: number; max: number }> = {};
  let windowLens: number[] = [];
  let obs = env.reset(req.seed);
  let lastEval: number[] = [];
  let steps = 0;
  const timing = { rolloutMs: 0, rewardMs: 0, updateMs: 0, evalMs: 0, updates: 0 };
  let tMark = performance.now();
  const lap = (key: "rolloutMs" | "rewardMs" | "updateMs" | "evalMs") => {
    const now = performance.now();
    timing[key] += now - tMark;
    tMark = now;
  };

  try {
    for (let it = 0; it < numIterations; it++) {
      if (signal?.aborted) throw abortError(signal);
      const lr = lrAt(it, numIterations, cfg.learningRate, cfg.annealLr);
      const epF: number[] = [],
        epLen: number[] = [];

      // ---- rollout
      tMark = performance.now();
      net.load(theta);
      for (let t = 0; t < T; t++) {
        const row = t * N;
        rawObs.set(obs, row * d);
        if (norm) norm.update(obs, N);
        const nObs = norm ? norm.apply(obs, stepObs) : obs;
        obsBuf.set(nObs, row * d);
        net.forward(nObs, N, "both");
        sampleActions(layout, theta, net.head, N, rng, stepActs, stepLogp);
        actBuf.set(stepActs, row * aDim);
        logpBuf.set(stepLogp, row);
        valBuf.set(net.value, row);
        for (let j = 0; j < N * aDim; j++) rewAct[row * aDim + j] = clip(j % aDim, stepActs[j]!);
        const b = env.step(continuous ? stepActs.slice() : Int32Array.from(stepActs));
        nextObsBuf.set(b.nextObs, row * d);
        for (const [key, v] of Object.entries(b.info)) (infoBuf[key] ??= new Float64Array(B)).set(v, row);
        for (let e = 0; e < N; e++) {
          const i = row + e;
          doneBuf[i] = b.terminated[e] || b.truncated[e] ? 1 : 0;
          termBuf[i] = b.terminated[e] ? 1 : 0;
          bootBuf[i] = 0;
          fitAcc[e]! += b.fitness[e]!;
          lenAcc[e]!++;
          if (doneBuf[i]) {
            epF.push(fitAcc[e]!);
            epLen.push(lenAcc[e]!);
            fitAcc[e] = 0;
            lenAcc[e] = 0;
            if (b.truncated[e] && !b.terminated[e]) {
              const next = b.nextObs.subarray(e * d, (e + 1) * d);
              net.forward(norm ? norm.apply(next, stepObs) : next, 1, "value");
              bootBuf[i] = cfg.gamma * net.value[0]!;
            }
          }
        }
        obs = b.obs;
      }
      steps += B;
      net.forward(norm ? norm.apply(obs, stepObs) : obs, N, "value");
      const nextValue = net.value.slice();

      lap("rolloutMs");
      // ---- reward: the program on the whole rollout, then GAE
      const out = evaluateChunked(reward, { n: B, obs: rawObs, action: rewAct, nextObs: nextObsBuf, info: infoBuf }, d, aDim);
      const rewards = Float64Array.from(out.total);
      const epRet: number[] = [];
      for (let i = 0; i < B; i++) {
        retAcc[i % N]! += rewards[i]!;
        if (doneBuf[i]) {
          epRet.push(retAcc[i % N]!);
          retAcc[i % N] = 0;
        }
      }
      if (scaler) scaler.apply(rewards, termBuf, T);
      for (let i = 0; i < B; i++) rewards[i]! += bootBuf[i]!;
      const { advantages, returns } = gae({
        rewards,
        values: valBuf,
        dones: doneBuf,
        nextValue,
        numSteps: T,
        numEnvs: N,
        gamma: cfg.gamma,
        lambda: cfg.gaeLambda,
      });

      lap("rewardMs");
      // ---- update: updateEpochs passes over shuffled minibatches
      for (let i = 0; i < B; i++) perm[i] = i;
      let clipFracSum = 0;
      let losses: MinibatchLosses | null = null;
      for (let epoch = 0; epoch < cfg.updateEpochs; epoch++) {
        for (let i = B - 1; i > 0; i--) {
          const j = rng.int(i + 1);
          const s = perm[i]!;
          perm[i] = perm[j]!;
          perm[j] = s;
        }
        for (let m = 0; m < numMb; m++) {
          for (let r = 0; r < mbSize; r++) advMb[r] = advantages[perm[m * mbSize + r]!]!;
          if (cfg.normAdv) normalizeAdvantages(advMb, mb.adv);
          else mb.adv.set(advMb);
          for (let r = 0; r < mbSize; r++) {
            const i = perm[m * mbSize + r]!;
            for (let j = 0; j < d; j++) mb.obs[r * d + j] = obsBuf[i * d + j]!;
            for (let j = 0; j < aDim; j++) mb.actions[r * aDim + j] = actBuf[i * aDim + j]!;
            mb.oldLogp[r] = logpBuf[i]!;
            mb.returns[r] = returns[i]!;
            mb.oldValue[r] = valBuf[i]!;
          }
          const diag = adam.step(mb, lr);
          clipFracSum += diag.clipFrac;
          if (epoch === cfg.updateEpochs - 1 && m === numMb - 1) losses = { ...diag };
          timing.updates++;
        }
      }
      lap("updateMs");
      if (!theta.every(Number.isFinite))
        throw new TrainingDivergedError(
          `reward: training diverged at step ${steps} (policy weights became NaN or infinite); keep reward terms bounded (e.g. |r| ≤ 100 per step)`,
        );

      // ---- logging: reward components, episodes, losses
      const comps: Record<string, ComponentStats> = {};
      for (const [key, v] of Object.entries(out.components ?? {})) {
        const s = stats(Float64Array.from(v));
        comps[key] = s;
        const w = (windowComp[key] ??= { sum: 0, n: 0, min: Infinity, max: -Infinity });
        w.sum += s.mean;
        w.n++;
        w.min = Math.min(w.min, s.min);
        w.max = Math.max(w.max, s.max);
      }
      windowLens.push(...epLen);
      const lossDiag: Required<LossDiagnostics> = {
        policyLoss: finiteOrNull(losses?.policyLoss),
        valueLoss: finiteOrNull(losses?.valueLoss),
        entropy: finiteOrNull(losses?.entropy),
        approxKl: finiteOrNull(losses?.approxKl),
        clipFrac: finiteOrNull(clipFracSum / (cfg.updateEpochs * numMb)),
        explainedVariance: finiteOrNull(explainedVariance(valBuf, returns)),
      };
      req.onProgress?.({
        iteration: it,
        steps,
        fitness: epF.length ? mean(epF) : null,
        episodeLength: epLen.length ? mean(epLen) : null,
        episodeReturn: epRet.length ? mean(epRet) : null,
        episodes: epRet.length,
        components: comps,
        losses: lossDiag,
      });

      if (checkpoints.has(it)) {
        tMark = performance.now();
        lastEval = evaluateGreedy(task, instance, layout, theta, norm, req.evalSeeds);
        lap("evalMs");
        result.fitnessCurve.push({ step: steps, fitness: mean(lastEval) });
        for (const [key, w] of Object.entries(windowComp)) (result.components[key] ??= []).push({ step: steps, mean: w.sum / w.n, min: w.min, max: w.max });
        if (windowLens.length) result.episodeLength.push({ step: steps, mean: mean(windowLens) });
        windowComp = {};
        windowLens = [];
      }
      // Let a pending abort (timer, parent message) reach the signal between iterations.
      await new Promise<void>((r) => setImmediate(r));
    }
  } finally {
    env.close?.();
  }

  const best = result.fitnessCurve.reduce((a, b) => (b.fitness > a.fitness ? b : a));
  return {
    final: { fitness: mean(lastEval), perSeed: lastEval },
    bestCheckpoint: { fitness: best.fitness, step: best.step },
    ...result,
    steps,
    wallMs: performance.now() - t0,
    timing,
    policy: serializePolicy(layout, theta, norm),
  };
};
