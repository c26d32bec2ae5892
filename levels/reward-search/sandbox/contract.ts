/**
 * The sandbox's contract in types (reward-sandbox.ts says it in words): what a reward reads (its layout: the
 * task's field names and the action space's kind), how a batch crosses into the sandbox (one column-major
 * Float64Array, [n, obs fields, action columns, nextObs fields, info fields], which prelude.js reads inside it),
 * the limits a program runs under, and the program.
 */
import { z } from "zod";
import type { ActionSpace, RewardBatchInput, RewardProgram, RewardTask, TaskInstance } from "../task.ts";
import { InvariantError } from "../../../src/errors.ts";

export const SandboxLimits = z.strictObject({
  cpuMsPerCall: z.number().positive().default(100).describe("CPU time one evaluate call (one batch) may take, ms; top-level code gets 10x"),
  memoryBytes: z
    .number()
    .int()
    .min(1 << 20)
    .default(32 << 20)
    .describe("memory the sandbox's heap may use, bytes"),
  seed: z.number().int().min(0).default(0).describe("seed of the sandbox's Math.random"),
});
export type SandboxLimits = z.infer<typeof SandboxLimits>;

export interface SandboxedReward extends RewardProgram {
  /** "perEnv" when the code's `reward` is called once per env, "batched" when `rewardBatch` is. */
  readonly form: "perEnv" | "batched";
  /** Component names, fixed by the first call that returned; null before it. */
  readonly componentNames: readonly string[] | null;
}

/** The names a reward reads: the task's observation, action and info names, and the action space's kind. */
export interface RewardLayout {
  observation: readonly string[];
  actionNames: readonly string[];
  actionKind: "discrete" | "continuous";
  info: readonly string[];
}

/** A task instance's layout; its action kind is read from an env made for the purpose and closed at once. */
export const rewardLayoutOf = (task: RewardTask, instance: TaskInstance): RewardLayout => {
  const env = task.makeEnv(instance, 1);
  try {
    return { observation: task.observation, actionNames: task.actionNames, actionKind: env.action.kind, info: task.info };
  } finally {
    env.close?.();
  }
};

/** The layout of a task's reward: its names, and the kind of its env's action space. */
export const rewardLayout = (task: Pick<RewardTask, "observation" | "actionNames" | "info">, action: ActionSpace): RewardLayout => ({
  observation: task.observation,
  actionNames: task.actionNames,
  actionKind: action.kind,
  info: task.info,
});

export function checkLayout(layout: RewardLayout): void {
  for (const [group, names] of [
    ["observation", layout.observation],
    ["info", layout.info],
    ["actionNames", layout.actionNames],
  ] as const) {
    const local = new Set<string>();
    for (const n of names) {
      if (local.has(n)) throw new InvariantError(`RewardLayout.${group}: duplicate name ${JSON.stringify(n)}; names must be unique`);
      if (n === "__proto__" || n === "") throw new InvariantError(`RewardLayout.${group}: ${JSON.stringify(n)} cannot be a field name; rename it`);
      local.add(n);
    }
  }
  if (layout.actionKind === "continuous" && layout.actionNames.length === 0) {
    throw new InvariantError("RewardLayout.actionNames: a continuous action needs ≥ 1 name (got none)");
  }
}

/** Action columns: one per named action for continuous actions, the chosen index for discrete ones. */
const actionColumns = (l: RewardLayout): number => (l.actionKind === "continuous" ? l.actionNames.length : 1);

/** The batch as one column-major Float64Array: [n, obs fields, action columns, nextObs fields, info fields]. */
export function packBatch(layout: RewardLayout, b: RewardBatchInput): Float64Array {
  const { observation, info } = layout;
  const n = b.n;
  const O = observation.length;
  const A = actionColumns(layout);
  if (!Number.isInteger(n) || n < 0) throw new InvariantError(`RewardBatchInput.n must be an integer ≥ 0 (got ${n})`);
  if (b.obs.length !== n * O) throw new InvariantError(`RewardBatchInput.obs has ${b.obs.length} values; expected n × ${O} = ${n * O}`);
  if (b.nextObs.length !== n * O) throw new InvariantError(`RewardBatchInput.nextObs has ${b.nextObs.length} values; expected n × ${O} = ${n * O}`);
  if (b.action.length !== n * A) throw new InvariantError(`RewardBatchInput.action has ${b.action.length} values; expected n × ${A} = ${n * A}`);
  const a = new Float64Array(1 + n * (2 * O + A + info.length));
  a[0] = n;
  let off = 1;
  for (let j = 0; j < O; j++, off += n) for (let i = 0; i < n; i++) a[off + i] = b.obs[i * O + j]!;
  for (let j = 0; j < A; j++, off += n) for (let i = 0; i < n; i++) a[off + i] = b.action[i * A + j]!;
  for (let j = 0; j < O; j++, off += n) for (let i = 0; i < n; i++) a[off + i] = b.nextObs[i * O + j]!;
  for (const name of info) {
    const col = b.info[name];
    if (!col || col.length !== n) {
      throw new InvariantError(
        `RewardBatchInput.info.${name}: expected ${n} values (got ${col ? col.length : "none"}); the env must report every info field of the layout`,
      );
    }
    a.set(col, off);
    off += n;
  }
  return a;
}
