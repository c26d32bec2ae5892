import { Worker } from "node:worker_threads";
import { beforeAll, describe, expect, it } from "vitest";
import { hostRewardProgram } from "../trainer/host-reward.ts";
import { trainPpo } from "../trainer/ppo.ts";
import type { StepBatch, VecEnv } from "../task.ts";
import { getTask, loadTask } from "../tasks/index.ts";
import { allocateChannel, CMD, CTRL, type Channel, ctrlAt, openChannel } from "./env-channel.ts";
import { EnvWorkerError, openThreadedEnv } from "./threaded-env.ts";

beforeAll(async () => {
  await loadTask("hopper");
  await loadTask("ant");
}, 120_000);

/** Reset at a seed, then steps of fixed pseudo-random actions; every batch kept. */
const play = (env: VecEnv, seed: number, steps: number): { first: Float64Array; batches: StepBatch[] } => {
  const dim = env.action.kind === "continuous" ? env.action.dim : 1;
  const first = env.reset(seed);
  const batches: StepBatch[] = [];
  for (let t = 0; t < steps; t++) {
    const a = Float64Array.from({ length: env.numEnvs * dim }, (_, j) => Math.sin(1.7 * t + 0.9 * j));
    batches.push(env.step(a));
  }
  return { first, batches };
};

/** Run one command on worker 0 of the channel, as threaded-env.ts does, and wait until it is done (60 s at most). */
const command = (c: Channel, cmd: number): void => {
  const done = ctrlAt(0, CTRL.done);
  Atomics.store(c.ctrl, ctrlAt(0, CTRL.cmd), cmd);
  const seq = Atomics.add(c.ctrl, ctrlAt(0, CTRL.seq), 1) + 1;
  Atomics.notify(c.ctrl, ctrlAt(0, CTRL.seq));
  for (let waits = 0; Atomics.load(c.ctrl, done) !== seq; waits++) {
    if (waits === 60) throw new Error(`env worker did not finish command ${cmd} within 60 s`);
    Atomics.wait(c.ctrl, done, Atomics.load(c.ctrl, done), 1000);
  }
};

/** Block this thread for ms milliseconds. */
const pause = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

describe("an env worker", () => {
  it("runs each command once: a wake-up with no new command does not step its envs again", async () => {
    const task = getTask("hopper");
    const instance = task.generate(0);
    const buffers = allocateChannel({ numEnvs: 1, obsDim: 11, actionDim: 3, info: task.info, workers: 1 });
    const c = openChannel(buffers);
    const worker = new Worker(new URL("./env-worker-entry.mjs", import.meta.url), {
      execArgv: [],
      workerData: { buffers, worker: 0, task: "hopper", instance },
    });
    try {
      expect(await new Promise((resolve) => worker.once("message", resolve))).toMatchObject({ ready: true });
      const alone = task.makeEnv(instance, 1);
      alone.reset(5);
      const actions = [Float64Array.of(0.9, -0.8, 0.7), Float64Array.of(-0.6, 0.5, -0.4)];
      const expected = actions.map((a) => alone.step(a).nextObs);
      alone.close?.();
      c.seed[0] = 5;
      command(c, CMD.reset);
      c.actions.set(actions[0]!);
      command(c, CMD.step);
      expect(c.nextObs.slice()).toEqual(expected[0]);
      // A notify that raises no seq (a stray or spurious wake-up), delivered to the waiting worker; a worker that
      // took it for a command would run the step again and then notify `done`, which ends this wait early.
      while (Atomics.notify(c.ctrl, ctrlAt(0, CTRL.seq)) === 0) pause(1);
      Atomics.wait(c.ctrl, ctrlAt(0, CTRL.done), Atomics.load(c.ctrl, ctrlAt(0, CTRL.done)), 1000);
      c.actions.set(actions[1]!);
      command(c, CMD.step);
      expect(c.nextObs.slice()).toEqual(expected[1]);
      command(c, CMD.close);
    } finally {
      await worker.terminate();
    }
  }, 60_000);
});

describe("a threaded env", () => {
  it.each(["hopper", "ant"])(
    "steps %s's envs exactly as one thread does, whatever the worker count",
    async (id) => {
      const task = getTask(id);
      const instance = task.generate(3);
      const alone = task.makeEnv(instance, 3);
      // 200 steps: hopper's random-action episodes end and auto-reset inside it, so resets are compared too.
      const expected = play(alone, 11, 200);
      alone.close?.();
      if (id === "hopper") expect(expected.batches.some((b) => b.terminated.some(Boolean))).toBe(true);
      for (const workers of id === "hopper" ? [1, 2] : [3]) {
        const env = await openThreadedEnv({ task, instance, numEnvs: 3, workers });
        try {
          const got = play(env, 11, 200);
          expect(got.first).toEqual(expected.first);
          expect(got.batches).toEqual(expected.batches);
        } finally {
          env.close();
        }
      }
    },
    120_000,
  );

  it("passes a worker's failure back with its message, and refuses to step after close", async () => {
    const task = getTask("hopper");
    const env = await openThreadedEnv({ task, instance: task.generate(0), numEnvs: 2, workers: 2 });
    env.reset(0);
    const nan = Float64Array.of(0, 0, 0, 0, Number.NaN, 0);
    expect(() => env.step(nan)).toThrow(EnvWorkerError);
    expect(() => env.step(nan)).toThrow(/env worker 1 of task hopper: InvariantError: VecEnv\.step: action 1 of env 1 is NaN/);
    env.close();
    expect(() => env.step(new Float64Array(6))).toThrow(/step after close\(\); make a new env/);
  }, 60_000);

  it("a task that does not exist fails the workers' start with the task's error", async () => {
    const task = { ...getTask("hopper"), id: "no_such_task" };
    await expect(openThreadedEnv({ task, instance: task.generate(0), numEnvs: 2, workers: 2 })).rejects.toThrow(
      /env worker \d of task no_such_task could not start: ConfigError: unknown reward-search task 'no_such_task'/,
    );
  }, 60_000);

  it("leaves PPO's result unchanged: a tiny hopper training with 1 and 2 env workers is identical", async () => {
    const task = getTask("hopper");
    const instance = task.generate(0);
    const train = (envWorkers: number) =>
      trainPpo({
        task,
        instance,
        reward: hostRewardProgram(task.humanReward!, task, false),
        steps: 512,
        seed: 4,
        evalSeeds: [1, 2, 3],
        ppo: { numEnvs: 2, numSteps: 128, minibatchSize: 64, updateEpochs: 2 },
        options: { envWorkers, checkpoints: 2 },
      });
    const one = await train(1);
    const two = await train(2);
    // From what the envs alone decide to what the updates decide, so a failure says where the runs parted.
    expect(two.episodeLength).toEqual(one.episodeLength);
    expect(two.policy.obsNorm).toEqual(one.policy.obsNorm);
    expect(two.components).toEqual(one.components);
    expect(two.fitnessCurve).toEqual(one.fitnessCurve);
    expect(two.final).toEqual(one.final);
    expect(two.policy).toEqual(one.policy);
  }, 120_000);
});
