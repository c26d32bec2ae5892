import { beforeAll, describe, expect, it } from "vitest";
import { assetPath, type MujocoVecEnv } from "../envs/mujoco/mujoco-env.ts";
import { loadedModel, mujocoRuntime } from "../envs/mujoco/runtime.ts";
import { getTask, loadTask } from "./index.ts";

/**
 * Each MuJoCo task against Gymnasium v5's formulas (envs/mujoco/assets/README.md), computed here by hand on a raw
 * MjData put in the same state and stepped with the same action: observation, reward terms (the task's
 * human reward code), F and termination.
 */

type Ref = { qpos0: number[]; qvel0: number[]; xpos0: number[]; qpos: number[]; qvel: number[]; xpos: number[]; cfrc: number[] };
interface Case {
  id: string;
  model: string;
  frameSkip: number;
  contact: boolean;
  state: (qpos0: number[]) => { qpos: number[]; qvel: number[] };
  action: number[];
  /** Whether this state ends the episode (each task with a termination rule has a case of each). */
  ends: boolean;
  hand: (r: Ref, a: number[]) => { obs: number[]; reward: number; fitness: number; terminated: boolean };
}

const clip = (v: number, c: number) => Math.max(-c, Math.min(c, v));
const sq = (xs: number[]) => xs.reduce((s, x) => s + x * x, 0);
const bump = (base: number[], by: number[]) => base.map((v, k) => v + (by[k] ?? 0));

/** Hopper and Walker2d: qpos[1:] + clip(qvel, ±10); healthy + x-velocity − 1e-3·Σa². */
const planar = (healthy: (q: number[], v: number[]) => boolean) => (r: Ref, a: number[]) => {
  const vx = (r.qpos[0]! - r.qpos0[0]!) / 0.008,
    h = healthy(r.qpos, r.qvel);
  return {
    obs: [...r.qpos.slice(1), ...r.qvel.map((v) => clip(v, 10))],
    reward: vx + (h ? 1 : 0) - 1e-3 * sq(a),
    fitness: r.qpos[0]! - r.qpos0[0]!,
    terminated: !h,
  };
};
const hopperHealthy = (q: number[], v: number[]) => [...q.slice(2), ...v].every((x) => x > -100 && x < 100) && q[1]! > 0.7 && Math.abs(q[2]!) < 0.2;
const walkerHealthy = (q: number[]) => q[1]! > 0.8 && q[1]! < 2 && q[2]! > -1 && q[2]! < 1;
const ant = (r: Ref, a: number[]) => {
  const f = r.cfrc.map((x) => clip(x, 1)),
    h = r.qpos[2]! >= 0.2 && r.qpos[2]! <= 1;
  const vx = (r.xpos[3]! - r.xpos0[3]!) / 0.05;
  return {
    obs: [...r.qpos.slice(2), ...r.qvel, ...f.slice(6)],
    reward: (h ? 1 : 0) + vx - 0.5 * sq(a) - 5e-4 * sq(f),
    fitness: r.xpos[3]! - r.xpos0[3]!,
    terminated: !h,
  };
};

const CASES: Case[] = [
  {
    id: "hopper",
    model: "hopper.xml",
    frameSkip: 4,
    contact: false,
    state: (q) => ({ qpos: bump(q, [0.1, -0.05, 0.05, -0.1, -0.2, 0.1]), qvel: [1, -0.5, 0.3, 2, -15, 0.5] }),
    ends: false,
    action: [0.5, -0.3, 1],
    hand: planar(hopperHealthy),
  },
  {
    id: "hopper",
    model: "hopper.xml",
    frameSkip: 4,
    contact: false,
    state: (q) => ({ qpos: bump(q, [0, 0, 0.5]), qvel: [0, 0, 0, 0, 0, 0] }),
    ends: true,
    action: [0, 0, 0],
    hand: planar(hopperHealthy),
  },
  {
    id: "walker2d",
    model: "walker2d_v5.xml",
    frameSkip: 4,
    contact: false,
    state: (q) => ({ qpos: bump(q, [0, 0, 0.1, 0.2, -0.1]), qvel: [2, 0, -1, 12, 0, 0, 0, 0, 0.5] }),
    ends: false,
    action: [0.3, -0.2, 0.1, 1, -1, 0],
    hand: planar(walkerHealthy),
  },
  {
    id: "walker2d",
    model: "walker2d_v5.xml",
    frameSkip: 4,
    contact: false,
    state: (q) => ({ qpos: bump(q, [0, -0.6]), qvel: new Array(9).fill(0) }),
    ends: true,
    action: [0, 0, 0, 0, 0, 0],
    hand: planar(walkerHealthy),
  },
  {
    id: "half_cheetah",
    model: "half_cheetah.xml",
    frameSkip: 5,
    contact: false,
    state: (q) => ({ qpos: bump(q, [0, 0.05, 0.1, 0.2, -0.3, 0.1, -0.2, 0.3]), qvel: [3, 0.5, -1, 11, 2, 0, -3, 0, 1] }),
    ends: false,
    action: [1, -1, 0.5, -0.5, 0.2, 0],
    hand: (r, a) => ({
      obs: [...r.qpos.slice(1), ...r.qvel],
      reward: (r.qpos[0]! - r.qpos0[0]!) / 0.05 - 0.1 * sq(a),
      fitness: r.qpos[0]! - r.qpos0[0]!,
      terminated: false,
    }),
  },
  {
    id: "ant",
    model: "ant.xml",
    frameSkip: 5,
    contact: true,
    state: (q) => ({ qpos: bump(q, [0, 0, -0.2, 0, 0, 0, 0, 0.2, 0.5, -0.2, -0.5]), qvel: [0.5, 0, -1, 0, 0, 0.3, 0, 0, 0, 0, 1, 0, 0, 0] }),
    ends: false,
    action: [0.5, -0.5, 1, 0, -1, 0.2, 0.3, -0.3],
    hand: ant,
  },
  {
    id: "ant",
    model: "ant.xml",
    frameSkip: 5,
    contact: true,
    state: (q) => ({ qpos: bump(q, [0, 0, 0.6]), qvel: [0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }),
    ends: true,
    action: new Array(8).fill(0),
    hand: ant,
  },
  {
    id: "inverted_pendulum",
    model: "inverted_pendulum.xml",
    frameSkip: 2,
    contact: false,
    state: () => ({ qpos: [0.1, 0.05], qvel: [0.2, -0.1] }),
    ends: false,
    action: [2],
    hand: (r) => {
      const fell = Math.abs(r.qpos[1]!) > 0.2;
      return { obs: [...r.qpos, ...r.qvel], reward: fell ? 0 : 1, fitness: fell ? 0 : 1, terminated: fell };
    },
  },
  {
    id: "inverted_pendulum",
    model: "inverted_pendulum.xml",
    frameSkip: 2,
    contact: false,
    state: () => ({ qpos: [0, 0.19], qvel: [0, 2] }),
    ends: true,
    action: [0],
    hand: (r) => {
      const fell = Math.abs(r.qpos[1]!) > 0.2;
      return { obs: [...r.qpos, ...r.qvel], reward: fell ? 0 : 1, fitness: fell ? 0 : 1, terminated: fell };
    },
  },
];

beforeAll(async () => {
  for (const id of new Set(CASES.map((c) => c.id))) await loadTask(id);
}, 120_000);

describe.each(CASES.map((c, k) => [`${c.id} #${k}`, c] as const))("%s against Gymnasium v5 by hand", (_name, c) => {
  it("observation, reward terms, F and termination after one step from a set state", () => {
    const task = getTask(c.id);
    const mj = mujocoRuntime("test");
    const m = loadedModel(assetPath(c.model), "test");
    const { qpos, qvel } = c.state(Array.from(m.qpos0 as Float64Array));

    // The env, put in the state after its reset.
    const env = task.makeEnv(task.generate(0), 1) as MujocoVecEnv;
    const obs = env.reset(0);
    const d = env.data(0);
    (d.qpos as Float64Array).set(qpos);
    (d.qvel as Float64Array).set(qvel);
    mj.mj_forward(m, d);
    const b = env.step(Float64Array.from(c.action));

    // The reference: a raw MjData in the same state, stepped as Gymnasium's do_simulation does.
    const r = new mj.MjData(m);
    (r.qpos as Float64Array).set(qpos);
    (r.qvel as Float64Array).set(qvel);
    mj.mj_forward(m, r);
    const ref: Ref = { qpos0: [...qpos], qvel0: [...qvel], xpos0: Array.from(r.xpos as Float64Array), qpos: [], qvel: [], xpos: [], cfrc: [] };
    (r.ctrl as Float64Array).set(c.action);
    for (let k = 0; k < c.frameSkip; k++) mj.mj_step(m, r);
    if (c.contact) mj.mj_rnePostConstraint(m, r);
    Object.assign(ref, {
      qpos: Array.from(r.qpos as Float64Array),
      qvel: Array.from(r.qvel as Float64Array),
      xpos: Array.from(r.xpos as Float64Array),
      cfrc: Array.from(r.cfrc_ext as Float64Array),
    });
    r.delete();
    const want = c.hand(ref, c.action);
    expect(want.terminated).toBe(c.ends);

    expect(Array.from(b.nextObs)).toEqual(want.obs);
    expect(b.fitness[0]).toBeCloseTo(want.fitness, 12);
    expect(b.terminated[0]).toBe(want.terminated ? 1 : 0);
    const named = (names: readonly string[], v: ArrayLike<number>) => Object.fromEntries(names.map((n, k) => [n, v[k]]));
    const info = Object.fromEntries(task.info.map((n) => [n, b.info[n]![0]]));
    const human = new Function(`${task.humanReward}\nreturn reward;`)() as (...a: unknown[]) => { total: number };
    expect(human(named(task.observation, obs), named(task.actionNames, c.action), named(task.observation, b.nextObs), info).total).toBeCloseTo(want.reward, 9);
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
    expect(() => getTask("hoper")).toThrow(/reward-search task "hoper" is unknown; known tasks: .*hopper.*ant/);
  });
});
