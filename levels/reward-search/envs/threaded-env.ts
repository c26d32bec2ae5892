import { Worker } from "node:worker_threads";
import { HexaError, InvariantError } from "../../../src/errors.ts";
import type { RewardTask, StepBatch, TaskInstance, VecEnv } from "../task.ts";
import { allocateChannel, CMD, CTRL, type Channel, type ChannelBuffers, ctrlAt, openChannel, readError, readInfo, STATUS } from "./env-channel.ts";
import type { EnvWorkerData } from "./env-worker.ts";

/**
 * A VecEnv whose envs step in worker threads (docs/spec/reward-search.md §2: one MuJoCo wasm instance per thread
 * scales ~1.95× on 2 cores; several envs in one thread gain nothing). Worker w holds envs [first, first + count)
 * (env-channel.ts workerEnvs) made with the task's `makeEnv(instance, count, first)`, so every env draws the
 * random stream it would draw in one thread: batches are identical whatever the worker count. Steps stay
 * synchronous: the trainer's thread writes the actions to shared memory and blocks (Atomics.wait) until every
 * worker has stepped its envs.
 */

/** A worker thread of a threaded env could not start, failed a command or stopped answering. */
export class EnvWorkerError extends HexaError {}

const ENTRY = new URL("./env-worker-entry.mjs", import.meta.url);
/** How long a command may take before the env gives up on a worker (one that died cannot say so while we block). */
const COMMAND_TIMEOUT_MS = 120_000;

export interface ThreadedEnvRequest {
  task: RewardTask;
  instance: TaskInstance;
  numEnvs: number;
  /** Worker threads; at most numEnvs are started. */
  workers: number;
}

type Ready = { ready: true } | { ready: false; error: string };

const start = (data: EnvWorkerData): Promise<Worker> =>
  new Promise((resolve, reject) => {
    // execArgv: []: the parent's `--import tsx` must not preload into the worker (the entry registers tsx itself).
    const worker = new Worker(ENTRY, { execArgv: [], workerData: data });
    const fail = (why: string) => {
      void worker.terminate();
      reject(new EnvWorkerError(`env worker ${data.worker} of task ${data.task} could not start: ${why}`));
    };
    worker.once("message", (m: Ready) => (m.ready ? resolve(worker) : fail(m.error)));
    worker.once("error", (e) => fail(`${e.name}: ${e.message}`));
    worker.once("exit", (code) => fail(`it exited (code ${code})`));
  });

/** The env's shape, from an env that is never reset (a MuJoCo env allocates nothing before its first reset). */
const probeShape = (task: RewardTask, instance: TaskInstance): Pick<VecEnv, "obsDim" | "action"> => {
  const probe = task.makeEnv(instance, 1);
  const { obsDim, action } = probe;
  probe.close?.();
  return { obsDim, action };
};

/** Starts every worker on the channel; if one fails, the others are terminated and its error thrown. */
const startWorkers = async (buffers: ChannelBuffers, count: number, task: RewardTask, instance: TaskInstance): Promise<Worker[]> => {
  const started = await Promise.allSettled(Array.from({ length: count }, (_, w) => start({ buffers, worker: w, task: task.id, instance })));
  const workers = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const failed = started.find((s) => s.status === "rejected");
  if (failed) {
    await Promise.all(workers.map((w) => w.terminate()));
    throw (failed as PromiseRejectedResult).reason;
  }
  for (const w of workers) w.unref();
  return workers;
};

/** Run one command on every worker and wait for all; a worker's failure is thrown after all have answered. */
const runCommand = (c: Channel, workers: readonly Worker[], taskId: string, cmd: number): void => {
  const targets = workers.map((_, w) => {
    Atomics.store(c.ctrl, ctrlAt(w, CTRL.cmd), cmd);
    const seq = Atomics.add(c.ctrl, ctrlAt(w, CTRL.seq), 1) + 1;
    Atomics.notify(c.ctrl, ctrlAt(w, CTRL.seq));
    return seq;
  });
  targets.forEach((seq, w) => {
    const at = ctrlAt(w, CTRL.done);
    for (let v = Atomics.load(c.ctrl, at); v !== seq; v = Atomics.load(c.ctrl, at)) {
      if (Atomics.wait(c.ctrl, at, v, COMMAND_TIMEOUT_MS) === "timed-out")
        throw new EnvWorkerError(`env worker ${w} of task ${taskId} did not answer within ${COMMAND_TIMEOUT_MS / 1000} s; it has probably died`);
    }
  });
  workers.forEach((_, w) => {
    if (Atomics.load(c.ctrl, ctrlAt(w, CTRL.status)) === STATUS.failed && cmd !== CMD.close)
      throw new EnvWorkerError(`env worker ${w} of task ${taskId}: ${readError(c, w)}`);
  });
};

/** The VecEnv over started workers: reset and step are commands to all of them, the batch read from the channel. */
const threadedVecEnv = (c: Channel, workers: readonly Worker[], taskId: string, action: VecEnv["action"]): VecEnv & { close(): void } => {
  const { numEnvs: N, obsDim, actionDim: k } = c.shape;
  let closed = false;
  let resetDone = false;
  const live = (what: string) => {
    if (closed) throw new InvariantError(`threaded env of ${taskId}: ${what} after close(); make a new env`);
  };
  return {
    numEnvs: N,
    obsDim,
    action,
    reset(seed: number): Float64Array {
      live("reset");
      c.seed[0] = seed;
      runCommand(c, workers, taskId, CMD.reset);
      resetDone = true;
      return c.obs.slice();
    },
    step(actions: Int32Array | Float64Array): StepBatch {
      live("step");
      if (!resetDone) throw new InvariantError("VecEnv.step: called before reset(seed); reset the env first");
      if (actions.length !== N * k) throw new InvariantError(`VecEnv.step: expected ${N * k} action values (${N} envs × ${k}) (got ${actions.length})`);
      c.actions.set(actions);
      runCommand(c, workers, taskId, CMD.step);
      return {
        obs: c.obs.slice(),
        nextObs: c.nextObs.slice(),
        terminated: c.terminated.slice(),
        truncated: c.truncated.slice(),
        info: readInfo(c),
        fitness: c.fitness.slice(),
      };
    },
    close(): void {
      if (closed) return;
      closed = true;
      try {
        runCommand(c, workers, taskId, CMD.close);
      } finally {
        for (const w of workers) void w.terminate();
      }
    },
  };
};

export const openThreadedEnv = async (r: ThreadedEnvRequest): Promise<VecEnv & { close(): void }> => {
  const { task, instance, numEnvs: N } = r;
  if (!Number.isInteger(r.workers) || r.workers < 1) throw new InvariantError(`openThreadedEnv: workers must be an integer ≥ 1 (got ${r.workers})`);
  const W = Math.min(r.workers, N);
  const { obsDim, action } = probeShape(task, instance);
  const k = action.kind === "discrete" ? 1 : action.dim;
  const buffers = allocateChannel({ numEnvs: N, obsDim, actionDim: k, info: task.info, workers: W });
  const workers = await startWorkers(buffers, W, task, instance);
  return threadedVecEnv(openChannel(buffers), workers, task.id, action);
};
