/**
 * Reward code run as a plain in-process function, with no isolation: the baseline the bench compares the
 * sandbox against, and a stand-in for tests. Never use it for LLM-written code (that goes through src/sandbox).
 */
import type { InfoBatch, RewardBatchInput, RewardProgram, RewardTask } from "../task.ts";

type RewardFn = (obs: unknown, action: unknown, nextObs: unknown, info: unknown) => { total: number; components?: Record<string, number> } | number;

/** Compile `function reward(obs, action, nextObs, info) { … }` (the sandbox's JavaScript contract) on the host. */
export const hostRewardProgram = (code: string, task: Pick<RewardTask, "observation" | "actionNames" | "info">, discrete: boolean): RewardProgram => {
  const fn = new Function(`${code}\nreturn reward;`)() as RewardFn;
  return plainRewardProgram((row) => fn(row.obs, row.action, row.nextObs, row.info), task, discrete);
};

export interface RewardRow {
  obs: Record<string, number>;
  action: number | Record<string, number>;
  nextObs: Record<string, number>;
  info: Record<string, number>;
}

/** A RewardProgram from a per-transition host function over named fields. */
export const plainRewardProgram = (
  fn: (row: RewardRow) => { total: number; components?: Record<string, number> } | number,
  task: Pick<RewardTask, "observation" | "actionNames" | "info">,
  discrete: boolean,
): RewardProgram => ({
  evaluate(b: RewardBatchInput) {
    const d = task.observation.length,
      k = discrete ? 1 : task.actionNames.length;
    const total = new Float64Array(b.n);
    const components: Record<string, Float64Array> = {};
    const named = (src: Float64Array, names: readonly string[], r: number, w: number) => {
      const o: Record<string, number> = {};
      names.forEach((nm, j) => {
        o[nm] = src[r * w + j]!;
      });
      return o;
    };
    const info = (src: InfoBatch, r: number) => {
      const o: Record<string, number> = {};
      for (const nm of task.info) o[nm] = src[nm]?.[r] ?? 0;
      return o;
    };
    for (let r = 0; r < b.n; r++) {
      const out = fn({
        obs: named(b.obs, task.observation, r, d),
        action: discrete ? b.action[r]! : named(b.action, task.actionNames, r, k),
        nextObs: named(b.nextObs, task.observation, r, d),
        info: info(b.info, r),
      });
      if (typeof out === "number") {
        total[r] = out;
        continue;
      }
      total[r] = out.total;
      for (const [c, v] of Object.entries(out.components ?? {})) (components[c] ??= new Float64Array(b.n))[r] = v;
    }
    return { total, components };
  },
  dispose() {},
});
