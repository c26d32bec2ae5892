/**
 * The built-in trainer process (bin/hexa-trainer.js): the reward-search tasks, reward code compiled in the
 * QuickJS sandbox, PPO on tfjs-wasm, behind the trainer protocol (docs/trainer-protocol.md). A fault of the
 * reward code is an `error` message with the fault, never a crash of this process.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { getTask, listTasks } from "../tasks/index.ts";
import { PpoConfig, TaskInstance, type RewardTask } from "../task.ts";
import { rewardLayoutOf } from "../sandbox/contract.ts";
import { compileReward, RewardCodeError } from "../sandbox/reward-sandbox.ts";
import { writeJsonAtomic } from "../../../src/store/jsonl.ts";
import { sourceClosureHash } from "../../../src/util/source-closure.ts";
import { trainPpo } from "./ppo.ts";
import type { SerializedPolicy } from "./policy.ts";
import type { TaskDescriptor, TrainMessage } from "./protocol.ts";
import { describeIssues } from "./protocol.ts";
import { TrainingDivergedError } from "./reward-batches.ts";
import { JobFailure, serveTrainer, type JobResult, type TrainerBackend } from "./serve.ts";

export const BUILTIN_TRAINER_NAME = "hexa-ppo";

const root = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * The package version plus a hash of every source file the trainer process runs (its import closure: trainer,
 * sandbox, tasks, their dynamics and helpers), so that the result cache never serves a result trained by
 * different code.
 */
export const builtinTrainerVersion = (): string => {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
  return `${pkg.version}+${sourceClosureHash(fileURLToPath(import.meta.url), root)}`;
};

export const describeTask = (t: RewardTask): TaskDescriptor => ({
  id: t.id,
  title: t.title,
  description: t.description,
  observation: [...t.observation],
  actionNames: [...t.actionNames],
  info: [...t.info],
  fitness: { describe: t.fitness.describe, range: [t.fitness.range[0], t.fitness.range[1]], solved: t.fitness.solved },
  maxEpisodeSteps: t.maxEpisodeSteps,
  defaultSteps: t.training.steps,
});

const PpoOverrides = PpoConfig.partial();

const instanceOf = (task: RewardTask, job: TrainMessage) => {
  if (typeof job.instance === "number") return task.generate(job.instance);
  const parsed = TaskInstance.safeParse(job.instance);
  if (!parsed.success) throw new JobFailure("bad_request", `instance is not a valid TaskInstance: ${describeIssues(parsed.error)}`);
  const inst = parsed.data;
  if (inst.task !== task.id)
    throw new JobFailure(
      "bad_request",
      `instance.task is ${JSON.stringify(inst.task)} but the job's task is ${JSON.stringify(task.id)}; send the instance of the task being trained`,
    );
  return inst;
};

export const builtinBackend = (): TrainerBackend => ({
  name: BUILTIN_TRAINER_NAME,
  version: builtinTrainerVersion(),
  tasks: listTasks().map((id) => describeTask(getTask(id))),
  train: async (job, { signal, progress }): Promise<JobResult> => {
    const task = getTask(job.task);
    // A task on a wasm engine (MuJoCo) loads its module and model once per thread before its first env.
    await task.prepare?.();
    const instance = instanceOf(task, job);
    const ppo = PpoOverrides.safeParse(job.ppo ?? {});
    if (!ppo.success) throw new JobFailure("bad_request", `ppo overrides are not valid PpoConfig fields: ${describeIssues(ppo.error)}`);
    const layout = rewardLayoutOf(task, instance);
    let reward;
    try {
      reward = await compileReward(job.reward, layout, { seed: job.seed });
    } catch (e) {
      if (e instanceof RewardCodeError) throw new JobFailure("reward_code", e.message, e.fault);
      throw e;
    }
    const kept: { step: number; policy: string }[] = [];
    const keep = (step: number, policy: SerializedPolicy) => {
      mkdirSync(job.jobDir, { recursive: true });
      const path = join(job.jobDir, `checkpoint-${step}.json`);
      writeJsonAtomic(path, { task: task.id, instance, seed: job.seed, steps: step, policy });
      kept.push({ step, policy: path });
    };
    try {
      const r = await trainPpo({
        task,
        instance,
        reward,
        steps: job.steps,
        seed: job.seed,
        evalSeeds: job.evalSeeds,
        // Only the fields the job gave: zod's partial() still fills defaults, which would replace the task's own settings.
        ppo: Object.fromEntries(Object.entries(ppo.data).filter(([k]) => Object.hasOwn(job.ppo ?? {}, k))),
        signal,
        onProgress: progress,
        ...(job.keepPolicies ? { onCheckpoint: keep } : {}),
      });
      mkdirSync(job.jobDir, { recursive: true });
      const policy = join(job.jobDir, "policy.json");
      writeJsonAtomic(policy, { task: task.id, instance, seed: job.seed, steps: r.steps, policy: r.policy });
      return {
        final: { fitness: r.final.fitness, perSeed: r.final.perSeed.map((fitness, i) => ({ seed: job.evalSeeds[i]!, fitness })) },
        bestCheckpoint: r.bestCheckpoint,
        components: r.components,
        episodeLength: r.episodeLength,
        fitnessCurve: r.fitnessCurve,
        steps: r.steps,
        wallMs: r.wallMs,
        policy,
        ...(job.keepPolicies ? { checkpointPolicies: kept } : {}),
      };
    } catch (e) {
      if (e instanceof RewardCodeError) throw new JobFailure("reward_code", e.message, e.fault);
      // A reward that blows the weights up (or has the wrong shape) is the code's fault too: feedback, not a crash.
      if (e instanceof TrainingDivergedError) throw new JobFailure("reward_code", e.message, { kind: "diverged", message: e.message });
      throw e;
    } finally {
      reward.dispose();
    }
  },
});

export const main = async (): Promise<void> => {
  await serveTrainer(builtinBackend());
  process.exit(0);
};
