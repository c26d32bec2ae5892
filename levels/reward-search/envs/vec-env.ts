import { InvariantError } from "../../../src/errors.ts";
import { createRng, type Rng } from "../../../src/util/rng.ts";
import type { ActionSpace, InfoBatch, StepBatch, TaskInstance, VecEnv } from "../task.ts";

/**
 * The shared harness of the reward-search tasks: one env's physics is an `EnvCore` written over flat arrays
 * (state per env indexed by i); the harness owns episode counters, the time limit, auto-reset, action
 * clipping and the per-env random streams. Every step returns fresh arrays, so a caller may keep them.
 */
export interface EnvCore {
  readonly obsDim: number;
  readonly action: ActionSpace;
  readonly info: readonly string[];
  readonly maxEpisodeSteps: number;
  /** Draw env i's initial state from its rng and write its observation at obs[off .. off + obsDim). */
  reset(i: number, rng: Rng, obs: Float64Array, off: number): void;
  /**
   * Advance env i by one step (action at actions[aOff..], discrete index or clipped values); write the next
   * observation at nextObs[off..], this step's info[name][i] and fitness[i]; return true when the episode
   * ended by the task's own rule.
   */
  step(i: number, actions: Int32Array | Float64Array, aOff: number, nextObs: Float64Array, off: number, info: InfoBatch, fitness: Float64Array): boolean;
}

/** A 32-bit seed for env i of a reset seed (an integer mix, so nearby seeds give unrelated streams). */
const envStreamSeed = (seed: number, i: number): number => {
  const lo = seed >>> 0;
  const hi = Math.floor(seed / 4294967296) >>> 0;
  let h = Math.imul(lo ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(hi + 0x632be5ab, 0xc2b2ae35) ^ Math.imul(i + 1, 0x27d4eb2f);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
};

/**
 * Seeds of a task instance: the train seed is 8·seed and the evaluation seeds 8·seed + 1..3, so evaluation
 * seeds never equal the train seed of any instance (all train seeds are ≡ 0 mod 8).
 */
export const instanceSeeds = (seed: number): Pick<TaskInstance, "trainSeed" | "evalSeeds"> => ({
  trainSeed: seed * 8,
  evalSeeds: [seed * 8 + 1, seed * 8 + 2, seed * 8 + 3],
});

/** The instance's own random source for its physical parameters (independent of the train/eval streams). */
export const paramRng = (taskId: string, seed: number): Rng => {
  let h = 0;
  for (let k = 0; k < taskId.length; k++) h = (Math.imul(h, 31) + taskId.charCodeAt(k)) >>> 0;
  return createRng(envStreamSeed(seed, h));
};

/** Round a parameter to 4 decimals, so instances print and compare cleanly. */
export const round4 = (v: number): number => Math.round(v * 1e4) / 1e4;

/** `firstEnv`: env i draws the random stream of env firstEnv + i, so a slice of a larger VecEnv (one worker thread's share) reproduces it. */
export const makeVecEnv = (numEnvs: number, core: EnvCore, firstEnv = 0): VecEnv => {
  if (!Number.isInteger(numEnvs) || numEnvs < 1) throw new InvariantError(`makeVecEnv: numEnvs must be an integer ≥ 1 (got ${numEnvs})`);
  const { obsDim, action, maxEpisodeSteps } = core;
  const rngs: Rng[] = [];
  const elapsed = new Int32Array(numEnvs);
  let started = false;
  const dim = action.kind === "discrete" ? 1 : action.dim;
  const clipped = action.kind === "continuous" ? new Float64Array(numEnvs * dim) : null;

  const checkActions = (actions: Int32Array | Float64Array): Int32Array | Float64Array => {
    if (actions.length !== numEnvs * dim) {
      throw new InvariantError(`VecEnv.step: expected ${numEnvs * dim} action values (${numEnvs} envs × ${dim}) (got ${actions.length})`);
    }
    if (action.kind === "discrete") {
      for (let i = 0; i < numEnvs; i++) {
        const a = actions[i]!;
        if (!Number.isInteger(a) || a < 0 || a >= action.n)
          throw new InvariantError(`VecEnv.step: action of env ${firstEnv + i} must be an integer in [0, ${action.n}) (got ${a})`);
      }
      return actions;
    }
    const out = clipped!;
    for (let i = 0; i < numEnvs; i++) {
      for (let d = 0; d < dim; d++) {
        const v = actions[i * dim + d]!;
        if (Number.isNaN(v)) throw new InvariantError(`VecEnv.step: action ${d} of env ${firstEnv + i} is NaN; the policy produced an invalid action`);
        out[i * dim + d] = v < action.low[d]! ? action.low[d]! : v > action.high[d]! ? action.high[d]! : v;
      }
    }
    return out;
  };

  return {
    numEnvs,
    obsDim,
    action,
    reset(seed: number): Float64Array {
      rngs.length = 0;
      const obs = new Float64Array(numEnvs * obsDim);
      for (let i = 0; i < numEnvs; i++) {
        rngs.push(createRng(envStreamSeed(seed, firstEnv + i)));
        core.reset(i, rngs[i]!, obs, i * obsDim);
        elapsed[i] = 0;
      }
      started = true;
      return obs.slice();
    },
    step(actions: Int32Array | Float64Array): StepBatch {
      if (!started) throw new InvariantError("VecEnv.step: called before reset(seed); reset the env first");
      const a = checkActions(actions);
      const nextObs = new Float64Array(numEnvs * obsDim);
      const fitness = new Float64Array(numEnvs);
      const terminated = new Uint8Array(numEnvs);
      const truncated = new Uint8Array(numEnvs);
      const info: InfoBatch = {};
      for (const name of core.info) info[name] = new Float64Array(numEnvs);
      for (let i = 0; i < numEnvs; i++) {
        const done = core.step(i, a, i * dim, nextObs, i * obsDim, info, fitness);
        elapsed[i] = elapsed[i]! + 1;
        if (done) terminated[i] = 1;
        else if (elapsed[i]! >= maxEpisodeSteps) truncated[i] = 1;
      }
      const obs = nextObs.slice();
      for (let i = 0; i < numEnvs; i++) {
        if (terminated[i] || truncated[i]) {
          core.reset(i, rngs[i]!, obs, i * obsDim);
          elapsed[i] = 0;
        }
      }
      return { obs, nextObs, terminated, truncated, info, fitness };
    },
  };
};

/** Names joined for descriptions: "x, x_dot and theta". */
export const listNames = (names: readonly string[]): string =>
  names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
