import { existsSync } from "node:fs";
import { z } from "zod";
import type { Task } from "../../../src/family/family.ts";
import { getTask } from "../tasks/index.ts";
import { CachedOutcome, TrainCache, type TrainerIdentity } from "../trainer/cache.ts";
import type { PoolJob, TrainerPool } from "../trainer/pool.ts";
import { scoreProblem } from "../trainer/result-check.ts";
import { REMOTE_POLICY_PREFIX } from "./remote-outcome.ts";

/** Most trainings one episode's result may hand back (one per turn, and a finish, is far fewer). */
const MAX_KEPT = 1000;
/** Longest reward code a kept training may name. */
const MAX_REWARD_CHARS = 1_000_000;

/**
 * One training an episode played on a worker asked for, as the worker hands it back beside the episode's
 * trajectory: what the episode chose (the reward code, the steps), the trainer that answered and its outcome.
 * The rest of the job (task, instance, seeds, PPO settings) is the coordinator's to rebuild from the episode's
 * task, so a kept entry is keyed exactly as the replay keys it (verify/replay-pool.ts).
 */
const KeptTraining = z.strictObject({
  reward: z.string().max(MAX_REWARD_CHARS),
  steps: z.number().int().min(1),
  trainer: z.strictObject({ name: z.string().min(1).max(200), version: z.string().max(200) }),
  /** Whether the trainings queue answered it from a worker's cache (the episode saw "cached"). */
  cached: z.boolean(),
  outcome: CachedOutcome,
});
type KeptTraining = z.infer<typeof KeptTraining>;

/** What a worker hands back for one episode: its trainings in the order asked. */
const KeptTrainings = z.array(KeptTraining).max(MAX_KEPT);
export type KeptTrainings = KeptTraining[];

/**
 * The episode's trainer on a worker, noting each training it answers (`kept`) for the coordinator to keep in the
 * run (docs/guides/verify.md): a remote training leaves no cache entry on the coordinator's machine otherwise.
 */
export const recordingTrainer = (pool: TrainerPool, kept: KeptTraining[]): Pick<TrainerPool, "train"> => ({
  train: async (job, o) => {
    const out = await pool.train(job, o);
    const { trainer } = await pool.hello();
    const losses = out.kind === "result" && out.losses !== undefined ? { losses: out.losses } : {};
    const outcome = out.kind === "result" ? { kind: out.kind, result: out.result, ...losses } : { kind: out.kind, error: out.error };
    kept.push({ reward: job.reward, steps: job.steps, trainer, cached: out.cached, outcome });
    return out;
  },
});

/** The job the episode's session sent for a kept training (tools/session.ts): the task's instance at the episode's seed. */
const jobOf = (task: Task, k: KeptTraining): PoolJob => {
  const t = getTask(task.level);
  const instance = t.generate(task.seed);
  return { task: t.id, instance, reward: k.reward, steps: k.steps, seed: instance.trainSeed, evalSeeds: instance.evalSeeds, ppo: t.training.ppo };
};

/** Why a kept training cannot be one of the episode's, as `field: problem`, or undefined. */
const keptProblem = (task: Task, k: KeptTraining, i: number): string | undefined => {
  if (k.outcome.kind !== "result") return undefined;
  const score = scoreProblem(jobOf(task, k), k.outcome.result, getTask(task.level).fitness.range);
  if (score) return `kept[${i}].outcome.result: ${score}`;
  const policy = k.outcome.result.policy;
  return policy.startsWith(REMOTE_POLICY_PREFIX)
    ? undefined
    : `kept[${i}].outcome.result.policy: ${JSON.stringify(policy.slice(0, 80))} names a file; a worker's policy is ${REMOTE_POLICY_PREFIX}<worker>`;
};

/** An entry the run found already stored is dated before any run started, as the replay reads a cached training. */
const BEFORE_THE_RUN = new Date(0);

/**
 * Keeps the trainings a worker's episode used in the run's trainer-cache/ (`dir`), each an entry of the trainer
 * cache's own format and key (trainer/cache.ts), so that the replay answers it as it answers a local one.
 * Everything is checked before anything is written: a result that fails is refused whole, naming the field, and
 * the caller refuses the episode. An entry the run holds already is left as it is (its first answer).
 */
export const keepWorkerTrainings = (dir: string, task: Task, raw: unknown, now: Date = new Date()): string | undefined => {
  if (raw === undefined) return "kept: missing; a worker of this hexa hands back the trainings of its episode";
  const parsed = KeptTrainings.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    return `kept${i.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("")}: ${i.message}`;
  }
  const problem = parsed.data.map((k, i) => keptProblem(task, k, i)).find((p) => p !== undefined);
  if (problem) return problem;
  const cache = new TrainCache(dir);
  for (const k of parsed.data) {
    const job = { ...jobOf(task, k), jobDir: "" };
    const trainer: TrainerIdentity = k.trainer;
    if (!existsSync(cache.entryPath(job, trainer))) cache.put(job, trainer, k.outcome, k.cached ? BEFORE_THE_RUN : now);
  }
  return undefined;
};
