import { beforeAll, describe, expect, it } from "vitest";
import type { MjData, MjModel } from "mujoco-js";
import { assetPath, type MujocoVecEnv } from "../envs/mujoco/mujoco-env.ts";
import { loadedModel, mujocoRuntime } from "../envs/mujoco/runtime.ts";
import { getTask, loadTask } from "./index.ts";

/**
 * Each MuJoCo task against Gymnasium v5's formulas (envs/mujoco/assets/README.md) and, for the held-out ones, its own
 * description (docs/spec/reward-search.md §2), computed here by hand on a raw MjData put in the same state and stepped
 * with the same action: observation, reward (the task's human reward code, or its sparse one where it has no
 * human reward), F and termination, at every step taken; F of the steps is their sum (task.ts).
 */

/**
 * xpos and cfrc as MjData holds them after mj_step, which is what Gymnasium reads: xpos is the kinematics of the last
 * physics step's start. bodyPos and bodyMat: the bodies' positions and orientations in the state itself.
 */
type State = { qpos: number[]; qvel: number[]; xpos: number[]; cfrc: number[]; bodyPos: number[]; bodyMat: number[] };
/** One step: the state before it (…0) and after it. */
type Ref = { qpos0: number[]; qvel0: number[]; xpos0: number[]; bodyPos0: number[]; bodyMat0: number[] } & State;
interface Case {
  id: string;
  state: (qpos0: number[]) => { qpos: number[]; qvel: number[] };
  action: number[];
  /** Env steps taken with the action (default 1); only the last may end the episode. */
  steps?: number;
  /** Whether the last step ends the episode (each task with a termination rule has a case of each). */
  ends: boolean;
  /** human: the human reward's total by hand (tasks that have one); sparse: the sparse reward's (held-out tasks). */
  hand: (r: Ref, a: number[]) => { obs: number[]; human?: number; sparse?: number; fitness: number; terminated: boolean };
}

const clip = (v: number, c: number) => Math.max(-c, Math.min(c, v));
const sq = (xs: number[]) => xs.reduce((s, x) => s + x * x, 0);
const bump = (base: number[], by: number[]) => base.map((v, k) => v + (by[k] ?? 0));
const TURN = 2 * Math.PI;

/** Hopper and Walker2d: qpos[1:] + clip(qvel, ±10); healthy + x-velocity − 1e-3·Σa². */
const planar = (healthy: (q: number[], v: number[]) => boolean) => (r: Ref, a: number[]) => {
  const vx = (r.qpos[0]! - r.qpos0[0]!) / 0.008,
    h = healthy(r.qpos, r.qvel);
  return {
    obs: [...r.qpos.slice(1), ...r.qvel.map((v) => clip(v, 10))],
    human: vx + (h ? 1 : 0) - 1e-3 * sq(a),
    fitness: r.qpos[0]! - r.qpos0[0]!,
    terminated: !h,
  };
};
const inRange = (xs: number[]) => xs.every((x) => x > -100 && x < 100);
const hopperHealthy = (q: number[], v: number[]) => inRange([...q.slice(2), ...v]) && q[1]! > 0.7 && Math.abs(q[2]!) < 0.2;
const walkerHealthy = (q: number[]) => q[1]! > 0.8 && q[1]! < 2 && q[2]! > -1 && q[2]! < 1;
/** The hopper torso's pitch from its orientation (body 1's matrix): its up axis's angle from vertical, positive towards +x. */
const pitch = (mat: number[]) => Math.atan2(mat[9 + 2]!, mat[9 + 8]!);
/** hopper_front_flip: the torso's forward turn in the step, unwrapped (a step turns it far less than π); ends only out of (−100, 100). */
const frontFlip = (r: Ref) => {
  const d = pitch(r.bodyMat) - pitch(r.bodyMat0),
    rotation = d - TURN * Math.round(d / TURN);
  return {
    obs: [...r.qpos.slice(1), ...r.qvel.map((v) => clip(v, 10))],
    sparse: rotation,
    fitness: rotation / TURN,
    terminated: !inRange([...r.qpos.slice(2), ...r.qvel]),
  };
};
/** half_cheetah_backward: the torso body's x lost; never ends. */
const cheetahBackward = (r: Ref) => {
  const lost = r.bodyPos0[3]! - r.bodyPos[3]!;
  return { obs: [...r.qpos.slice(1), ...r.qvel], sparse: lost, fitness: lost, terminated: false };
};
const ant = (r: Ref, a: number[]) => {
  const f = r.cfrc.map((x) => clip(x, 1)),
    h = r.qpos[2]! >= 0.2 && r.qpos[2]! <= 1;
  const vx = (r.xpos[3]! - r.xpos0[3]!) / 0.05;
  return {
    obs: [...r.qpos.slice(2), ...r.qvel, ...f.slice(6)],
    human: (h ? 1 : 0) + vx - 0.5 * sq(a) - 5e-4 * sq(f),
    fitness: r.xpos[3]! - r.xpos0[3]!,
    terminated: !h,
  };
};
/** ant_along_y: the torso's y gained, read from xpos as Ant-v5 reads x; ends as Ant does. */
const antAlongY = (r: Ref) => {
  const gained = r.xpos[4]! - r.xpos0[4]!;
  return {
    obs: [...r.qpos.slice(2), ...r.qvel, ...r.cfrc.slice(6).map((x) => clip(x, 1))],
    sparse: gained,
    fitness: gained,
    terminated: !(r.qpos[2]! >= 0.2 && r.qpos[2]! <= 1),
  };
};

/** Gymnasium v5's model, frame skip and whether it reads contact forces, per task (held-out tasks reuse their body's). */
const SIM: Record<string, { model: string; frameSkip: number; contact: boolean }> = {
  hopper: { model: "hopper.xml", frameSkip: 4, contact: false },
  walker2d: { model: "walker2d_v5.xml", frameSkip: 4, contact: false },
  half_cheetah: { model: "half_cheetah.xml", frameSkip: 5, contact: false },
  ant: { model: "ant.xml", frameSkip: 5, contact: true },
  inverted_pendulum: { model: "inverted_pendulum.xml", frameSkip: 2, contact: false },
  hopper_front_flip: { model: "hopper.xml", frameSkip: 4, contact: false },
  half_cheetah_backward: { model: "half_cheetah.xml", frameSkip: 5, contact: false },
  ant_along_y: { model: "ant.xml", frameSkip: 5, contact: true },
};

const CASES: Case[] = [
  {
    id: "hopper",
    state: (q) => ({ qpos: bump(q, [0.1, -0.05, 0.05, -0.1, -0.2, 0.1]), qvel: [1, -0.5, 0.3, 2, -15, 0.5] }),
    ends: false,
    action: [0.5, -0.3, 1],
    hand: planar(hopperHealthy),
  },
  {
    id: "hopper",
    state: (q) => ({ qpos: bump(q, [0, 0, 0.5]), qvel: [0, 0, 0, 0, 0, 0] }),
    ends: true,
    action: [0, 0, 0],
    hand: planar(hopperHealthy),
  },
  {
    id: "walker2d",
    state: (q) => ({ qpos: bump(q, [0, 0, 0.1, 0.2, -0.1]), qvel: [2, 0, -1, 12, 0, 0, 0, 0, 0.5] }),
    ends: false,
    action: [0.3, -0.2, 0.1, 1, -1, 0],
    hand: planar(walkerHealthy),
  },
  {
    id: "walker2d",
    state: (q) => ({ qpos: bump(q, [0, -0.6]), qvel: new Array(9).fill(0) }),
    ends: true,
    action: [0, 0, 0, 0, 0, 0],
    hand: planar(walkerHealthy),
  },
  {
    id: "half_cheetah",
    state: (q) => ({ qpos: bump(q, [0, 0.05, 0.1, 0.2, -0.3, 0.1, -0.2, 0.3]), qvel: [3, 0.5, -1, 11, 2, 0, -3, 0, 1] }),
    ends: false,
    action: [1, -1, 0.5, -0.5, 0.2, 0],
    hand: (r, a) => ({
      obs: [...r.qpos.slice(1), ...r.qvel],
      human: (r.qpos[0]! - r.qpos0[0]!) / 0.05 - 0.1 * sq(a),
      fitness: r.qpos[0]! - r.qpos0[0]!,
      terminated: false,
    }),
  },
  {
    id: "ant",
    state: (q) => ({ qpos: bump(q, [0, 0, -0.2, 0, 0, 0, 0, 0.2, 0.5, -0.2, -0.5]), qvel: [0.5, 0, -1, 0, 0, 0.3, 0, 0, 0, 0, 1, 0, 0, 0] }),
    ends: false,
    action: [0.5, -0.5, 1, 0, -1, 0.2, 0.3, -0.3],
    hand: ant,
  },
  {
    id: "ant",
    state: (q) => ({ qpos: bump(q, [0, 0, 0.6]), qvel: [0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }),
    ends: true,
    action: new Array(8).fill(0),
    hand: ant,
  },
  {
    id: "inverted_pendulum",
    state: () => ({ qpos: [0.1, 0.05], qvel: [0.2, -0.1] }),
    ends: false,
    action: [2],
    hand: (r) => {
      const fell = Math.abs(r.qpos[1]!) > 0.2;
      return { obs: [...r.qpos, ...r.qvel], human: fell ? 0 : 1, fitness: fell ? 0 : 1, terminated: fell };
    },
  },
  {
    id: "inverted_pendulum",
    state: () => ({ qpos: [0, 0.19], qvel: [0, 2] }),
    ends: true,
    action: [0],
    hand: (r) => {
      const fell = Math.abs(r.qpos[1]!) > 0.2;
      return { obs: [...r.qpos, ...r.qvel], human: fell ? 0 : 1, fitness: fell ? 0 : 1, terminated: fell };
    },
  },
  {
    // Spinning forward high in the air: over 40 steps the torso turns past ±π and more than one full turn.
    id: "hopper_front_flip",
    state: (q) => ({ qpos: bump(q, [0, 8, 2.5]), qvel: [0.5, 0, 30, 0, 0, 0] }),
    action: [0.5, -0.3, 1],
    steps: 40,
    ends: false,
    hand: frontFlip,
  },
  {
    // Lying upside down, which would end Hopper's episode, does not end this one.
    id: "hopper_front_flip",
    state: (q) => ({ qpos: bump(q, [0, -0.9, Math.PI]), qvel: [0, 0, -2, 0, 0, 0] }),
    action: [0, 0, 0],
    steps: 3,
    ends: false,
    hand: frontFlip,
  },
  {
    id: "hopper_front_flip",
    state: (q) => ({ qpos: bump(q, [0, 3, 99.9]), qvel: [0, 0, 20, 0, 0, 0] }),
    action: [0, 0, 0],
    ends: true,
    hand: frontFlip,
  },
  {
    id: "hopper_front_flip",
    state: (q) => ({ qpos: bump(q, [0, 3]), qvel: [0, 0, -120, 0, 0, 0] }),
    action: [0, 0, 0],
    ends: true,
    hand: frontFlip,
  },
  {
    id: "half_cheetah_backward",
    state: (q) => ({ qpos: bump(q, [0, 0.05, -0.1, 0.2, -0.3, 0.1, -0.2, 0.3]), qvel: [-3, 0.5, 1, 11, 2, 0, -3, 0, 1] }),
    action: [1, -1, 0.5, -0.5, 0.2, 0],
    steps: 5,
    ends: false,
    hand: cheetahBackward,
  },
  {
    // Flipped onto its back: the cheetah never terminates.
    id: "half_cheetah_backward",
    state: (q) => ({ qpos: bump(q, [0, 0, Math.PI]), qvel: [2, 0, 0, 0, 0, 0, 0, 0, 0] }),
    action: [0, 0, 0, 0, 0, 0],
    steps: 3,
    ends: false,
    hand: cheetahBackward,
  },
  {
    id: "ant_along_y",
    state: (q) => ({ qpos: bump(q, [0, 0, -0.2, 0, 0, 0, 0, 0.2, 0.5, -0.2, -0.5]), qvel: [0.3, 1, -1, 0, 0, 0.3, 0, 0, 0, 0, 1, 0, 0, 0] }),
    action: [0.5, -0.5, 1, 0, -1, 0.2, 0.3, -0.3],
    steps: 5,
    ends: false,
    hand: antAlongY,
  },
  {
    id: "ant_along_y",
    state: (q) => ({ qpos: bump(q, [0, 0, 0.6]), qvel: [0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }),
    action: new Array(8).fill(0),
    ends: true,
    hand: antAlongY,
  },
];

beforeAll(async () => {
  for (const id of new Set(CASES.map((c) => c.id))) await loadTask(id);
}, 120_000);

/** d's State; mj_kinematics for bodyPos and bodyMat changes nothing the next mj_step reads. */
const snapshot = (m: MjModel, d: MjData): State => {
  const s = {
    qpos: Array.from(d.qpos as Float64Array),
    qvel: Array.from(d.qvel as Float64Array),
    xpos: Array.from(d.xpos as Float64Array),
    cfrc: Array.from(d.cfrc_ext as Float64Array),
  };
  mujocoRuntime("test").mj_kinematics(m, d);
  return { ...s, bodyPos: Array.from(d.xpos as Float64Array), bodyMat: Array.from(d.xmat as Float64Array) };
};

describe.each(CASES.map((c, k) => [`${c.id} #${k}`, c] as const))("%s against its definition by hand", (_name, c) => {
  it("observation, reward, F and termination at every step from a set state", () => {
    const task = getTask(c.id);
    const sim = SIM[c.id]!;
    const mj = mujocoRuntime("test");
    const m = loadedModel(assetPath(sim.model), "test");
    const { qpos, qvel } = c.state(Array.from(m.qpos0 as Float64Array));

    // The env, put in the state after its reset.
    const env = task.makeEnv(task.generate(0), 1) as MujocoVecEnv;
    let obs = env.reset(0);
    const d = env.data(0);
    (d.qpos as Float64Array).set(qpos);
    (d.qvel as Float64Array).set(qvel);
    mj.mj_forward(m, d);

    // The reference: a raw MjData in the same state, stepped as Gymnasium's do_simulation does.
    const r = new mj.MjData(m);
    (r.qpos as Float64Array).set(qpos);
    (r.qvel as Float64Array).set(qvel);
    mj.mj_forward(m, r);
    (r.ctrl as Float64Array).set(c.action);

    const named = (names: readonly string[], v: ArrayLike<number>) => Object.fromEntries(names.map((n, k) => [n, v[k]]));
    const total = (code: string, before: ArrayLike<number>, b: { nextObs: Float64Array; info: Record<string, Float64Array> }) => {
      const reward = new Function(`${code}\nreturn reward;`)() as (...a: unknown[]) => { total: number };
      const info = Object.fromEntries(task.info.map((n) => [n, b.info[n]![0]]));
      return reward(named(task.observation, before), named(task.actionNames, c.action), named(task.observation, b.nextObs), info).total;
    };
    let f = 0,
      fHand = 0;
    const steps = c.steps ?? 1;
    let before = snapshot(m, r);
    for (let s = 0; s < steps; s++) {
      for (let k = 0; k < sim.frameSkip; k++) mj.mj_step(m, r);
      if (sim.contact) mj.mj_rnePostConstraint(m, r);
      const after = snapshot(m, r);
      const want = c.hand(
        { qpos0: before.qpos, qvel0: before.qvel, xpos0: before.xpos, bodyPos0: before.bodyPos, bodyMat0: before.bodyMat, ...after },
        c.action,
      );
      before = after;
      expect(want.terminated).toBe(s === steps - 1 && c.ends);

      const b = env.step(Float64Array.from(c.action));
      expect(Array.from(b.nextObs)).toEqual(want.obs);
      expect(b.fitness[0]).toBeCloseTo(want.fitness, 12);
      expect(b.terminated[0]).toBe(want.terminated ? 1 : 0);
      expect(want.human === undefined).toBe(task.humanReward === null);
      if (task.humanReward !== null) expect(total(task.humanReward, obs, b)).toBeCloseTo(want.human!, 9);
      else expect(total(task.sparseReward, obs, b)).toBeCloseTo(want.sparse!, 12);
      f += b.fitness[0]!;
      fHand += want.fitness;
      obs = b.nextObs;
    }
    expect(f).toBeCloseTo(fHand, 11);
    r.delete();
    env.close!();
  });
});

describe("MuJoCo task definitions", () => {
  it("every Gymnasium task's sparse reward differs from its human reward, so the human-normalised score is defined", () => {
    for (const id of ["hopper", "walker2d", "half_cheetah", "ant", "inverted_pendulum"]) {
      const t = getTask(id);
      expect(t.humanReward).not.toBeNull();
      expect(t.sparseReward.replace(/\s+/g, "")).not.toBe(t.humanReward!.replace(/\s+/g, ""));
      expect(t.description).not.toContain(t.humanReward!);
    }
    for (const id of ["hopper_front_flip", "half_cheetah_backward", "ant_along_y"]) expect(getTask(id).humanReward).toBeNull();
  });

  it("an unknown task names the MuJoCo ones", () => {
    expect(() => getTask("hoper")).toThrow(/unknown reward-search task 'hoper'; known: .*hopper.*ant/);
  });
});
