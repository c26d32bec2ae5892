import { parentPort, workerData } from "node:worker_threads";
import type { TaskInstance, VecEnv } from "../task.ts";
import { loadTask } from "../tasks/index.ts";
import { CMD, CTRL, type ChannelBuffers, ctrlAt, openChannel, STATUS, workerEnvs, writeError } from "./env-channel.ts";

/**
 * One worker thread of a threaded VecEnv (threaded-env.ts): its own copy of the task's engine (MuJoCo's wasm
 * module), and envs [first, first + count) of the whole VecEnv, stepped on the channel's commands.
 */
export interface EnvWorkerData {
  buffers: ChannelBuffers;
  worker: number;
  task: string;
  instance: TaskInstance;
}

const { buffers, worker: w, task: taskId, instance } = workerData as EnvWorkerData;
const c = openChannel(buffers);
const { numEnvs: N, obsDim: d, actionDim: k, info: names } = c.shape;
const { first, count } = workerEnvs(N, c.shape.workers, w);
const at = (word: number) => ctrlAt(w, word);

let env: VecEnv;
try {
  const task = await loadTask(taskId);
  env = task.makeEnv(instance, count, first);
  parentPort!.postMessage({ ready: true, discrete: env.action.kind === "discrete" });
} catch (e) {
  parentPort!.postMessage({ ready: false, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
  process.exit(0);
}
const discrete = env.action.kind === "discrete";

const step = (): void => {
  const slice = c.actions.subarray(first * k, (first + count) * k);
  const b = env.step(discrete ? Int32Array.from(slice) : slice.slice());
  c.obs.set(b.obs, first * d);
  c.nextObs.set(b.nextObs, first * d);
  c.terminated.set(b.terminated, first);
  c.truncated.set(b.truncated, first);
  c.fitness.set(b.fitness, first);
  names.forEach((name, j) => {
    const v = b.info[name];
    if (v) c.info.set(v, j * N + first);
    else c.info.fill(0, j * N + first, j * N + first + count);
  });
};

let seen = 0;
for (;;) {
  // Only a raised seq is a command: a wake-up without one (a stray notify) must not run the last command again.
  while (Atomics.load(c.ctrl, at(CTRL.seq)) === seen) Atomics.wait(c.ctrl, at(CTRL.seq), seen);
  seen = Atomics.load(c.ctrl, at(CTRL.seq));
  const cmd = Atomics.load(c.ctrl, at(CTRL.cmd));
  // After a failure only close runs (the envs are still freed); the main thread has already thrown.
  if (cmd === CMD.close || Atomics.load(c.ctrl, at(CTRL.status)) === STATUS.ok) {
    try {
      if (cmd === CMD.reset) c.obs.set(env.reset(c.seed[0]!), first * d);
      else if (cmd === CMD.step) step();
      else env.close?.();
    } catch (e) {
      writeError(c, w, e instanceof Error ? `${e.name}: ${e.message}` : String(e));
    }
  }
  Atomics.store(c.ctrl, at(CTRL.done), seen);
  Atomics.notify(c.ctrl, at(CTRL.done));
  if (cmd === CMD.close) break;
}
