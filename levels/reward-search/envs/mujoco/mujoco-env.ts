import { fileURLToPath } from "node:url";
import type { MjData, MjModel } from "mujoco-js";
import { InvariantError } from "../../../../src/errors.ts";
import type { Rng } from "../../../../src/util/rng.ts";
import type { InfoBatch, VecEnv } from "../../task.ts";
import { makeVecEnv, type EnvCore } from "../vec-env.ts";
import { loadedModel, loadModel, mujocoRuntime } from "./runtime.ts";

/**
 * A Gymnasium v5 MuJoCo env (gymnasium/envs/mujoco/mujoco_env.py, facts in docs/spec/reward-search.md §2 and
 * envs/mujoco/assets/README.md) over the shared vec-env harness: reset noise around the model's qpos0, the
 * action written to ctrl and held for frame_skip physics steps, then the task's observation, info, fitness
 * and termination. The harness adds the time limit, auto-reset and action clipping.
 */
export interface MujocoSpec {
  /** Model file name in ./assets. */
  model: string;
  frameSkip: number;
  /** Action bounds: the model's actuator ctrlrange (checked when the model loads). */
  low: readonly number[];
  high: readonly number[];
  /** Reset noise scale s: qpos0 + U(−s, s); qvel + U(−s, s) or s·N(0, 1). */
  resetNoise: number;
  qvelNoise: "uniform" | "normal";
  /** Also compute cfrc_ext (mj_rnePostConstraint) after stepping: Ant's contact forces. */
  contactForces: boolean;
  obsDim: number;
  info: readonly string[];
  maxEpisodeSteps: number;
  /** Write the observation of d at out[off .. off + obsDim). */
  observe(d: MjData, out: Float64Array, off: number): void;
  /** What the step's outcome compares before and after (e.g. the torso's x), read before stepping. */
  track(d: MjData): number[];
  /** After the step: write info[name][i] and fitness[i]; return true when the episode ends by the task's rule. */
  outcome(o: StepOutcome): boolean;
}

export interface StepOutcome {
  d: MjData;
  /** track(d) before the step. */
  before: readonly number[];
  /** This env's clipped action. */
  action: Float64Array;
  /** Seconds per env step: timestep × frame_skip. */
  dt: number;
  /** Env steps since reset, this one included. */
  steps: number;
  /** This step's observation (its row of nextObs). */
  obs: Float64Array;
  i: number;
  info: InfoBatch;
  fitness: Float64Array;
}

export type MujocoVecEnv = VecEnv & {
  /** Free every MjData of this env (also done when it is garbage-collected unclosed). */
  close(): void;
  /** Env i's MjData (after the first reset): tests set a state through it. */
  data(i: number): MjData;
  /** The model the envs run (after the first reset): pictures read its geoms. */
  model(): MjModel;
  /** Seconds per env step: timestep × frame_skip (after the first reset). */
  stepSeconds(): number;
  /** The model file the envs run (its name in ./assets). */
  readonly modelFile: string;
  /**
   * Call `watch` with env i's MjData after each of its steps, before an episode that ended is reset (the last
   * state of an episode is gone from `data(i)` once step() returns); null stops watching. A trajectory recorder reads it.
   */
  watchSteps(watch: StepWatcher | null): void;
};

/** Reads env i's state after its step; must leave the state as the next step needs it. */
type StepWatcher = (i: number, d: MjData, m: MjModel) => void;

const ASSETS = new URL("./assets/", import.meta.url);

/** The path of a shipped model file. */
export const assetPath = (file: string): string => fileURLToPath(new URL(file, ASSETS));

/** Load the module and the spec's model in this thread; check the action bounds against its ctrlrange. */
export const prepareMujoco = async (spec: MujocoSpec): Promise<void> => {
  const model = await loadModel(assetPath(spec.model));
  const range = model.actuator_ctrlrange as Float64Array;
  for (let k = 0; k < model.nu; k++) {
    if (range[2 * k] !== spec.low[k] || range[2 * k + 1] !== spec.high[k]) {
      throw new InvariantError(
        `${spec.model}: actuator ${k}'s ctrlrange is [${range[2 * k]}, ${range[2 * k + 1]}] but the task says [${spec.low[k]}, ${spec.high[k]}]; make the task's action bounds match the model`,
      );
    }
  }
  if (model.nu !== spec.low.length)
    throw new InvariantError(`${spec.model}: the model has ${model.nu} actuators but the task ${spec.low.length} actions; match them`);
};

const freeAll = (ds: MjData[]): void => {
  for (const d of ds) if (!d.isDeleted()) d.delete();
  ds.length = 0;
};

/** Envs dropped without close() free their MjData when collected (the trainer drops its envs). */
const finaliser = new FinalizationRegistry<MjData[]>(freeAll);

/** What one MuJoCo VecEnv holds: the MjData of each env (made on the first reset), the model, each env's step count. */
interface MujocoState {
  readonly spec: MujocoSpec;
  /** The env's name in error messages. */
  readonly where: string;
  readonly numEnvs: number;
  readonly datas: MjData[];
  readonly steps: Int32Array;
  model: MjModel | null;
  /** Seconds per env step: timestep × frame_skip. */
  dt: number;
  closed: boolean;
  watcher: StepWatcher | null;
}

/** MjData for every env on the first reset, so that makeEnv itself needs no wasm module. */
const allocate = (s: MujocoState): MjModel => {
  if (s.closed) throw new InvariantError(`${s.where}: reset after close(); make a new env`);
  if (s.model) return s.model;
  const mj = mujocoRuntime(s.where);
  const m = loadedModel(assetPath(s.spec.model), s.where);
  for (let i = 0; i < s.numEnvs; i++) s.datas.push(new mj.MjData(m));
  s.dt = m.opt.timestep * s.spec.frameSkip;
  s.model = m;
  return m;
};

/** Gymnasium's reset_model and step for one env (the vec-env harness runs them for each env of a batch). */
const mujocoCore = (s: MujocoState): EnvCore => {
  const { spec, where, datas, steps } = s;
  const dim = spec.low.length;
  return {
    obsDim: spec.obsDim,
    action: { kind: "continuous", dim, low: spec.low, high: spec.high },
    info: spec.info,
    maxEpisodeSteps: spec.maxEpisodeSteps,
    reset(i: number, rng: Rng, obs: Float64Array, off: number) {
      const m = allocate(s);
      const mj = mujocoRuntime(where);
      const d = datas[i]!;
      mj.mj_resetData(m, d);
      // Views are fetched after every allocation above: a heap growth empties views fetched before it.
      const qpos = d.qpos as Float64Array,
        qvel = d.qvel as Float64Array,
        qpos0 = m.qpos0 as Float64Array;
      const noise = spec.resetNoise;
      for (let k = 0; k < qpos.length; k++) qpos[k] = qpos0[k]! + rng.uniform(-noise, noise);
      for (let k = 0; k < qvel.length; k++) qvel[k] = spec.qvelNoise === "uniform" ? rng.uniform(-noise, noise) : noise * rng.normal();
      mj.mj_forward(m, d);
      steps[i] = 0;
      spec.observe(d, obs, off);
    },
    step(i: number, actions: Int32Array | Float64Array, aOff: number, nextObs: Float64Array, off: number, info: InfoBatch, fitness: Float64Array) {
      const m = s.model!;
      const mj = mujocoRuntime(where);
      const d = datas[i]!;
      const action = (actions as Float64Array).subarray(aOff, aOff + dim);
      const before = spec.track(d);
      (d.ctrl as Float64Array).set(action);
      for (let k = 0; k < spec.frameSkip; k++) mj.mj_step(m, d);
      if (spec.contactForces) mj.mj_rnePostConstraint(m, d);
      spec.observe(d, nextObs, off);
      steps[i] = steps[i]! + 1;
      const ended = spec.outcome({ d, before, action, dt: s.dt, steps: steps[i]!, obs: nextObs.subarray(off, off + spec.obsDim), i, info, fitness });
      s.watcher?.(i, d, m);
      return ended;
    },
  };
};

/** The VecEnv with what MuJoCo adds: close() frees the MjData (also on collection), and the tests' and pictures' reads. */
const mujocoVecEnv = (s: MujocoState, env: VecEnv): MujocoVecEnv => {
  const { where, datas } = s;
  const out: MujocoVecEnv = {
    numEnvs: env.numEnvs,
    obsDim: env.obsDim,
    action: env.action,
    reset: (seed) => env.reset(seed),
    step: (a) => {
      if (s.closed) throw new InvariantError(`${where}: step after close(); make a new env`);
      return env.step(a);
    },
    close: () => {
      s.closed = true;
      finaliser.unregister(out);
      freeAll(datas);
    },
    data: (i) => {
      const d = datas[i];
      if (!d) throw new InvariantError(`${where}: no env ${i} yet (${s.numEnvs} envs, allocated on the first reset); reset first`);
      return d;
    },
    model: () => {
      if (!s.model) throw new InvariantError(`${where}: no model yet (loaded on the first reset); reset first`);
      return s.model;
    },
    stepSeconds: () => s.dt,
    modelFile: s.spec.model,
    watchSteps: (watch) => {
      s.watcher = watch;
    },
  };
  finaliser.register(out, datas, out);
  return out;
};

export const makeMujocoEnv = (spec: MujocoSpec, numEnvs: number, firstEnv = 0): MujocoVecEnv => {
  const s: MujocoState = {
    spec,
    where: `mujoco env ${spec.model}`,
    numEnvs,
    datas: [],
    steps: new Int32Array(numEnvs),
    model: null,
    dt: 0,
    closed: false,
    watcher: null,
  };
  return mujocoVecEnv(s, makeVecEnv(numEnvs, mujocoCore(s), firstEnv));
};
