import type { InfoBatch } from "../task.ts";

/**
 * The shared memory between a threaded VecEnv (threaded-env.ts) and its worker threads (env-worker.ts): one
 * control word block per worker, and batch arrays over all envs in which each worker owns the rows of its
 * envs. The main thread writes actions and a command, bumps `seq` and waits; the worker runs the command on
 * its rows and sets `done` = seq. Synchronous on both sides (Atomics.wait), so a VecEnv's step stays a plain
 * function call for the trainer.
 */

/** Control words of one worker: the command, its sequence number, the last one done, and a status. */
export const CTRL = { cmd: 0, seq: 1, done: 2, status: 3, errorLength: 4 } as const;
const CTRL_WORDS = 5;
export const CMD = { reset: 1, step: 2, close: 3 } as const;
export const STATUS = { ok: 0, failed: 1 } as const;
const ERROR_BYTES = 4096;

export interface ChannelShape {
  numEnvs: number;
  obsDim: number;
  /** Action values per env (1 for a discrete action). */
  actionDim: number;
  info: readonly string[];
  workers: number;
}

/** What crosses to a worker (workerData): the shape and the buffers; views are made on each side. */
export interface ChannelBuffers {
  shape: ChannelShape;
  ctrl: SharedArrayBuffer;
  seed: SharedArrayBuffer;
  actions: SharedArrayBuffer;
  obs: SharedArrayBuffer;
  nextObs: SharedArrayBuffer;
  terminated: SharedArrayBuffer;
  truncated: SharedArrayBuffer;
  fitness: SharedArrayBuffer;
  info: SharedArrayBuffer;
  errors: SharedArrayBuffer;
}

export interface Channel {
  shape: ChannelShape;
  buffers: ChannelBuffers;
  /** Worker w's control words at [w·CTRL_WORDS, …). */
  ctrl: Int32Array;
  seed: Float64Array;
  actions: Float64Array;
  obs: Float64Array;
  nextObs: Float64Array;
  terminated: Uint8Array;
  truncated: Uint8Array;
  fitness: Float64Array;
  /** info name k of env i at [k·numEnvs + i]. */
  info: Float64Array;
  errors: Uint8Array;
}

const f64 = (n: number) => new SharedArrayBuffer(8 * Math.max(1, n));

export const allocateChannel = (shape: ChannelShape): ChannelBuffers => {
  const { numEnvs: N, obsDim: d } = shape;
  return {
    shape,
    ctrl: new SharedArrayBuffer(4 * CTRL_WORDS * shape.workers),
    seed: f64(1),
    actions: f64(N * shape.actionDim),
    obs: f64(N * d),
    nextObs: f64(N * d),
    terminated: new SharedArrayBuffer(N),
    truncated: new SharedArrayBuffer(N),
    fitness: f64(N),
    info: f64(N * shape.info.length),
    errors: new SharedArrayBuffer(ERROR_BYTES * shape.workers),
  };
};

export const openChannel = (b: ChannelBuffers): Channel => ({
  shape: b.shape,
  buffers: b,
  ctrl: new Int32Array(b.ctrl),
  seed: new Float64Array(b.seed),
  actions: new Float64Array(b.actions),
  obs: new Float64Array(b.obs),
  nextObs: new Float64Array(b.nextObs),
  terminated: new Uint8Array(b.terminated),
  truncated: new Uint8Array(b.truncated),
  fitness: new Float64Array(b.fitness),
  info: new Float64Array(b.info),
  errors: new Uint8Array(b.errors),
});

/** Index of worker w's control word `word`. */
export const ctrlAt = (w: number, word: number): number => w * CTRL_WORDS + word;

/** The envs [first, first + count) of worker w: the envs split as evenly as they go, in order. */
export const workerEnvs = (numEnvs: number, workers: number, w: number): { first: number; count: number } => {
  const base = Math.floor(numEnvs / workers),
    extra = numEnvs % workers;
  return { first: w * base + Math.min(w, extra), count: base + (w < extra ? 1 : 0) };
};

export const writeError = (c: Channel, w: number, message: string): void => {
  const bytes = new TextEncoder().encode(message).subarray(0, ERROR_BYTES);
  c.errors.set(bytes, w * ERROR_BYTES);
  Atomics.store(c.ctrl, ctrlAt(w, CTRL.errorLength), bytes.length);
  Atomics.store(c.ctrl, ctrlAt(w, CTRL.status), STATUS.failed);
};

export const readError = (c: Channel, w: number): string => {
  const n = Atomics.load(c.ctrl, ctrlAt(w, CTRL.errorLength));
  return new TextDecoder().decode(c.errors.slice(w * ERROR_BYTES, w * ERROR_BYTES + n));
};

/** The info batch of the channel's rows, as fresh arrays (a caller may keep them). */
export const readInfo = (c: Channel): InfoBatch => {
  const N = c.shape.numEnvs;
  const info: InfoBatch = {};
  c.shape.info.forEach((name, k) => {
    info[name] = c.info.slice(k * N, (k + 1) * N);
  });
  return info;
};
