import type { ActionSpace, StepBatch, VecEnv } from "../task.ts";
import type { FastRng as Rng } from "../../../src/util/rng.ts";
import type { ActorCritic } from "./actor-critic.ts";
import type { RunningNorm } from "./normalisers.ts";
import { type PolicyLayout, sampleActions } from "./policy.ts";

/** The training episodes that ended in one rollout: their F and length, in the order they ended. */
export interface EndedEpisodes {
  fitness: number[];
  length: number[];
}

/**
 * PPO's rollout (CleanRL's storage and its `for step in range(num_steps)` loop): T steps of N envs under the
 * current policy into buffers allocated once per training, row t·N + e. A time-limit truncation is bootstrapped
 * here, with the true next observation (ppo.ts explains why). Also keeps each env's running F, length and return
 * across rollouts, so that an episode spanning two iterations counts whole.
 */
export class Rollout {
  /** The policy's inputs (normalised when a RunningNorm is given). */
  readonly obs: Float64Array;
  /** The observations as the env gave them: what the reward program reads. */
  readonly rawObs: Float64Array;
  readonly nextObs: Float64Array;
  /** The sampled actions (unclipped: what the log-probabilities are of). */
  readonly actions: Float64Array;
  /** The actions as the env applies them (clipped to the action bounds): what the reward program reads. */
  readonly rewardActions: Float64Array;
  readonly logp: Float64Array;
  readonly values: Float64Array;
  /** γ·V(next observation) where an episode was truncated by the time limit, else 0. */
  readonly bootstrap: Float64Array;
  /** 1 where the episode ended (terminated or truncated). */
  readonly dones: Uint8Array;
  readonly terminated: Uint8Array;
  /** The env's info fields, one row per transition. */
  readonly info: Record<string, Float64Array> = {};
  readonly numSteps: number;
  private readonly stepActs: Float64Array;
  private readonly stepLogp: Float64Array;
  private readonly stepObs: Float64Array;
  private readonly fitAcc: Float64Array;
  private readonly lenAcc: Float64Array;
  private readonly retAcc: Float64Array;
  /** Action values per transition (1 for a discrete action). */
  readonly actionDim: number;
  /** The envs' observations to act on next (raw). */
  private current: Float64Array;

  constructor(
    private readonly env: VecEnv,
    private readonly net: ActorCritic,
    private readonly layout: PolicyLayout,
    private readonly rng: Rng,
    private readonly norm: RunningNorm | null,
    private readonly gamma: number,
    numSteps: number,
  ) {
    const N = env.numEnvs,
      d = env.obsDim,
      B = N * numSteps;
    const aDim = env.action.kind === "continuous" ? env.action.dim : 1;
    this.numSteps = numSteps;
    this.actionDim = aDim;
    this.obs = new Float64Array(B * d);
    this.rawObs = new Float64Array(B * d);
    this.nextObs = new Float64Array(B * d);
    this.actions = new Float64Array(B * aDim);
    this.rewardActions = new Float64Array(B * aDim);
    this.logp = new Float64Array(B);
    this.values = new Float64Array(B);
    this.bootstrap = new Float64Array(B);
    this.dones = new Uint8Array(B);
    this.terminated = new Uint8Array(B);
    this.stepActs = new Float64Array(N * aDim);
    this.stepLogp = new Float64Array(N);
    this.stepObs = new Float64Array(N * d);
    this.fitAcc = new Float64Array(N);
    this.lenAcc = new Float64Array(N);
    this.retAcc = new Float64Array(N);
    this.current = new Float64Array(0);
  }

  /** Reset the envs at the run's seed: the first rollout acts on their first observations. */
  reset(seed: number): void {
    this.current = this.env.reset(seed);
  }

  /** One rollout of the policy θ; pushes the episodes that ended to `ended`; returns V of the observations after it. */
  collect(theta: Float32Array, ended: EndedEpisodes): Float64Array {
    const { env, net, layout, rng, norm, stepActs, stepLogp, stepObs, actionDim: aDim } = this;
    const { obs, rawObs, nextObs, actions, logp, values, info } = this;
    const N = env.numEnvs,
      d = env.obsDim,
      T = this.numSteps,
      B = N * T;
    const continuous = env.action.kind === "continuous";
    net.load(theta);
    for (let t = 0; t < T; t++) {
      const row = t * N;
      const current = this.current;
      rawObs.set(current, row * d);
      if (norm) norm.update(current, N);
      const nObs = norm ? norm.apply(current, stepObs) : current;
      obs.set(nObs, row * d);
      net.forward(nObs, N, "both");
      sampleActions(layout, theta, net.head, N, rng, stepActs, stepLogp);
      actions.set(stepActs, row * aDim);
      logp.set(stepLogp, row);
      values.set(net.value, row);
      this.writeRewardActions(env.action, row);
      const b = env.step(continuous ? stepActs.slice() : Int32Array.from(stepActs));
      nextObs.set(b.nextObs, row * d);
      for (const [key, v] of Object.entries(b.info)) (info[key] ??= new Float64Array(B)).set(v, row);
      this.recordEnds(b, row, ended);
      this.current = b.obs;
    }
    net.forward(norm ? norm.apply(this.current, stepObs) : this.current, N, "value");
    return net.value.slice();
  }

  /** The step's actions as the env applies them: clipped to [low, high] (continuous), as sampled (discrete). */
  private writeRewardActions(space: ActionSpace, row: number): void {
    const { stepActs, rewardActions, actionDim: aDim } = this;
    const n = stepActs.length;
    if (space.kind === "continuous") {
      for (let j = 0; j < n; j++) rewardActions[row * aDim + j] = Math.max(space.low[j % aDim]!, Math.min(space.high[j % aDim]!, stepActs[j]!));
    } else for (let j = 0; j < n; j++) rewardActions[row * aDim + j] = stepActs[j]!;
  }

  /** Marks the step's episode ends; an env's finished episode goes to `ended`; a truncation is bootstrapped. */
  private recordEnds(b: StepBatch, row: number, ended: EndedEpisodes): void {
    const { net, norm, stepObs, fitAcc, lenAcc, dones, terminated, bootstrap } = this;
    const N = this.env.numEnvs,
      d = this.env.obsDim;
    for (let e = 0; e < N; e++) {
      const i = row + e;
      dones[i] = b.terminated[e] || b.truncated[e] ? 1 : 0;
      terminated[i] = b.terminated[e] ? 1 : 0;
      bootstrap[i] = 0;
      fitAcc[e]! += b.fitness[e]!;
      lenAcc[e]!++;
      if (dones[i]) {
        ended.fitness.push(fitAcc[e]!);
        ended.length.push(lenAcc[e]!);
        fitAcc[e] = 0;
        lenAcc[e] = 0;
        if (b.truncated[e] && !b.terminated[e]) {
          const next = b.nextObs.subarray(e * d, (e + 1) * d);
          net.forward(norm ? norm.apply(next, stepObs) : next, 1, "value");
          bootstrap[i] = this.gamma * net.value[0]!;
        }
      }
    }
  }

  /**
   * The returns (sums of the reward program's rewards, before normalisation) of the episodes that ended in
   * this rollout, in row order; each env's unfinished return carries over to the next rollout.
   */
  episodeReturns(rewards: Float64Array): number[] {
    const { dones, retAcc } = this;
    const N = this.env.numEnvs;
    const returns: number[] = [];
    for (let i = 0; i < rewards.length; i++) {
      retAcc[i % N]! += rewards[i]!;
      if (dones[i]) {
        returns.push(retAcc[i % N]!);
        retAcc[i % N] = 0;
      }
    }
    return returns;
  }
}
