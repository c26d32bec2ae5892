/**
 * The reward program on a rollout: its T × N transitions go to the program in chunks (a few sandbox crossings
 * per iteration), and what comes back is checked before training uses it.
 */
import type { RewardBatchInput, RewardOutput, RewardProgram } from "../task.ts";
import { ModelOutputError } from "../../../src/errors.ts";

/**
 * The reward made training unusable: weights became NaN/∞ (rewards of huge magnitude), or the program returned
 * the wrong number of values. Feedback for the reward's author, like RewardCodeError (sandbox/faults.ts).
 */
export class TrainingDivergedError extends ModelOutputError {}

const checkRewardOutput = (out: RewardOutput, n: number): void => {
  const bad = (what: string, len: number) =>
    new TrainingDivergedError(`reward: ${what} has ${len} entries for a batch of ${n}; return one number per transition`);
  if (!out || !(out.total instanceof Float64Array || Array.isArray(out.total)) || out.total.length !== n) throw bad("total", out?.total?.length ?? 0);
  for (const [k, v] of Object.entries(out.components ?? {})) if (v.length !== n) throw bad(`component ${k}`, v.length);
};

/**
 * Rows per reward call: a rollout's transitions go to the program in chunks of this many (a few crossings per
 * iteration, each well inside the sandbox's per-call CPU limit even for 2048-step rollouts).
 */
const REWARD_CHUNK = 512;

/** reward.evaluate over b in chunks of ≤ chunk rows, outputs joined (a component missing in a chunk reads 0). */
export const evaluateChunked = (reward: RewardProgram, b: RewardBatchInput, obsDim: number, actDim: number, chunk = REWARD_CHUNK): RewardOutput => {
  if (b.n <= chunk) {
    const out = reward.evaluate(b);
    checkRewardOutput(out, b.n);
    return out;
  }
  const total = new Float64Array(b.n);
  const components: Record<string, Float64Array> = {};
  for (let i0 = 0; i0 < b.n; i0 += chunk) {
    const i1 = Math.min(b.n, i0 + chunk),
      n = i1 - i0;
    const info: Record<string, Float64Array> = {};
    for (const [k, v] of Object.entries(b.info)) info[k] = v.subarray(i0, i1);
    const out = reward.evaluate({
      n,
      obs: b.obs.subarray(i0 * obsDim, i1 * obsDim),
      action: b.action.subarray(i0 * actDim, i1 * actDim),
      nextObs: b.nextObs.subarray(i0 * obsDim, i1 * obsDim),
      info,
    });
    checkRewardOutput(out, n);
    total.set(out.total, i0);
    for (const [k, v] of Object.entries(out.components ?? {})) (components[k] ??= new Float64Array(b.n)).set(v, i0);
  }
  return { total, components };
};
