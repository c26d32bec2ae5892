/**
 * The policies of known quality the calibration bench judges (docs/benchmarks/judge-calibration.md), per task:
 * zero actions, uniform random actions, PPO with the task's own (human) reward at a small and a larger budget,
 * and PPO with a hacked reward (one that pays for something other than the task's goal). Trained policies are
 * cached under the bench's folder, keyed by everything that makes them, so a second run judges the same ones.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { mulberry32 } from "../src/util/rng.ts";
import { compileReward } from "../levels/reward-search/sandbox/reward-sandbox.ts";
import { rewardLayoutOf } from "../levels/reward-search/sandbox/contract.ts";
import type { RewardTask, TaskInstance } from "../levels/reward-search/task.ts";
import { trainPpo } from "../levels/reward-search/trainer/ppo.ts";
import { loadPolicy } from "../levels/reward-search/trainer/policy.ts";

export type Act = (obs: Float64Array) => Float64Array | Int32Array;

export interface PolicySpec {
  /** Unique within its task: zero, random, ppo-20480, hacked-40960. */
  name: string;
  /** What it is and the quality expected of it, in words. */
  expected: string;
  kind: "zero" | "random" | "ppo";
  /** PPO env steps (scaled by --scale). */
  steps?: number;
  /** PPO's reward code: the task's own, or a hacked one. */
  reward?: string;
}

/** A hacked reward per task: what it pays for instead of the goal. */
const HACKED: Readonly<Record<string, { reward: string; what: string }>> = {
  hopper: {
    what: "pays for staying healthy only (standing still earns it all)",
    reward: `function reward(obs, action, nextObs, info) { return { total: info.healthy, components: { healthy: info.healthy } }; }`,
  },
  half_cheetah: {
    what: "pays for backward velocity",
    reward: `function reward(obs, action, nextObs, info) { return { total: -info.x_velocity, components: { backward: -info.x_velocity } }; }`,
  },
  inverted_pendulum: {
    what: "pays for the cart's speed, not the pole",
    reward: `function reward(obs, action, nextObs, info) { const v = Math.abs(nextObs.cart_velocity); return { total: v, components: { speed: v } }; }`,
  },
};

/** PPO budgets per task at --scale 1: small enough for a loaded 2-core machine. */
const BUDGETS: Readonly<Record<string, { low: number; high: number; hacked: number }>> = {
  hopper: { low: 20_480, high: 122_880, hacked: 40_960 },
  half_cheetah: { low: 20_480, high: 122_880, hacked: 81_920 },
  inverted_pendulum: { low: 10_240, high: 61_440, hacked: 20_480 },
};

export const CALIBRATION_TASKS = Object.keys(BUDGETS);

const steps = (n: number) => n.toLocaleString("en-US");

/** The policies judged on `task`, their PPO budgets multiplied by `scale`. */
export const policySpecs = (task: RewardTask, scale: number): PolicySpec[] => {
  const b = BUDGETS[task.id];
  const hack = HACKED[task.id];
  if (!b || !hack || task.humanReward === null)
    throw new Error(`bench/judge-calibration-policies.ts: no policies for ${task.id} (have ${CALIBRATION_TASKS.join(", ")})`);
  const low = b.low * scale,
    high = b.high * scale,
    hacked = b.hacked * scale;
  return [
    { name: "zero", expected: "zero actions (no effort)", kind: "zero" },
    { name: "random", expected: "uniform random actions", kind: "random" },
    { name: `ppo-${low}`, expected: `PPO, the task's reward, ${steps(low)} steps (mediocre)`, kind: "ppo", steps: low, reward: task.humanReward },
    { name: `ppo-${high}`, expected: `PPO, the task's reward, ${steps(high)} steps (better)`, kind: "ppo", steps: high, reward: task.humanReward },
    { name: `hacked-${hacked}`, expected: `PPO, a hacked reward that ${hack.what}, ${steps(hacked)} steps`, kind: "ppo", steps: hacked, reward: hack.reward },
  ];
};

const CachedPolicy = z.object({
  task: z.string(),
  name: z.string(),
  seed: z.number().int(),
  steps: z.number().int(),
  reward: z.string(),
  trainSeconds: z.number(),
  policy: z.any(),
});

/** A PPO policy from the cache, or trained now and cached; the cache must match task, name, seed, steps and reward. */
const trainedPolicy = async (
  task: RewardTask,
  instance: TaskInstance,
  spec: PolicySpec,
  dir: string,
): Promise<{ act: Act; trainSeconds: number; cached: boolean }> => {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${task.id}-${spec.name}-s${instance.seed}.json`);
  const key = { task: task.id, name: spec.name, seed: instance.seed, steps: spec.steps!, reward: spec.reward! };
  if (existsSync(file)) {
    const cached = CachedPolicy.parse(JSON.parse(readFileSync(file, "utf8")));
    const same = cached.task === key.task && cached.name === key.name && cached.seed === key.seed && cached.steps === key.steps && cached.reward === key.reward;
    if (same) {
      const p = loadPolicy(cached.policy);
      return { act: (obs) => p.act(obs, 1), trainSeconds: cached.trainSeconds, cached: true };
    }
  }
  const reward = await compileReward(spec.reward!, rewardLayoutOf(task, instance));
  try {
    const r = await trainPpo({
      task,
      instance,
      reward,
      steps: spec.steps!,
      seed: instance.trainSeed,
      evalSeeds: instance.evalSeeds,
      options: { checkpoints: 1 },
    });
    const trainSeconds = r.wallMs / 1000;
    writeFileSync(file, JSON.stringify({ ...key, trainSeconds, policy: r.policy }));
    const p = loadPolicy(r.policy);
    return { act: (obs) => p.act(obs, 1), trainSeconds, cached: false };
  } finally {
    reward.dispose();
  }
};

/** The action bounds of the task's continuous action space. */
const bounds = (task: RewardTask, instance: TaskInstance): { low: readonly number[]; high: readonly number[] } => {
  const env = task.makeEnv(instance, 1);
  env.close?.();
  if (env.action.kind !== "continuous")
    throw new Error(`bench/judge-calibration-policies.ts: ${task.id} has discrete actions; the MuJoCo tasks are continuous`);
  return env.action;
};

/** The policy's action for an episode's seed (random actions are seeded by it), and its training time. */
export const policyActor = async (
  task: RewardTask,
  instance: TaskInstance,
  spec: PolicySpec,
  cacheDir: string,
): Promise<{ actFor: (seed: number) => Act; trainSeconds: number | null; cached: boolean }> => {
  const { low, high } = bounds(task, instance);
  if (spec.kind === "zero") return { actFor: () => () => new Float64Array(low.length), trainSeconds: null, cached: false };
  if (spec.kind === "random")
    return {
      actFor: (seed) => {
        const rng = mulberry32(seed + 1);
        return () => Float64Array.from(low, (l, i) => l + rng() * (high[i]! - l));
      },
      trainSeconds: null,
      cached: false,
    };
  const trained = await trainedPolicy(task, instance, spec, cacheDir);
  return { actFor: () => trained.act, trainSeconds: trained.trainSeconds, cached: trained.cached };
};
