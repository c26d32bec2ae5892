import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { MjData, MjModel } from "mujoco-js";
import { beforeAll, describe, expect, it } from "vitest";
import { assetPath, type MujocoVecEnv } from "../envs/mujoco/mujoco-env.ts";
import { loadedModel, mujocoRuntime } from "../envs/mujoco/runtime.ts";
import { HUMANOID_ACTIONS, HUMANOID_BODIES, HUMANOID_JOINTS, humanoidHealthy } from "./humanoid.ts";
import { type getTask, loadTask } from "./index.ts";

/**
 * Humanoid-v5 against Gymnasium's source (Farama-Foundation/Gymnasium at 3f0476a8cc224dcce2167cc4b6971ae0f04d5cfc,
 * gymnasium/envs/mujoco/humanoid_v5.py, "v5:L" below): each number is derived here by hand, from a raw MjData put in
 * the same state and stepped as Gymnasium's _step_mujoco_simulation does (mujoco_env.py:L150 mj_step × frame_skip,
 * L155 mj_rnePostConstraint).
 */

const SOURCE = "3f0476a8cc224dcce2167cc4b6971ae0f04d5cfc";
/** git's blob id of gymnasium/envs/mujoco/assets/humanoid.xml at SOURCE (`git rev-parse SOURCE:…`). */
const HUMANOID_XML_BLOB = "a263bdbcf54f95b449486b18281d9dc0c24a0102";
const DT = 0.003 * 5; // humanoid.xml's timestep × v5:L310 frame_skip=5

let task: ReturnType<typeof getTask>;
let m: MjModel;
let mj: ReturnType<typeof mujocoRuntime>;
beforeAll(async () => {
  task = await loadTask("humanoid");
  m = loadedModel(assetPath("humanoid.xml"), "test");
  mj = mujocoRuntime("test");
}, 120_000);

const sq = (xs: ArrayLike<number>) => Array.from(xs).reduce((s, x) => s + x * x, 0);
const rows = (v: ArrayLike<number>, skip: number) => Array.from(v).slice(skip);

/** v5:L17-21 mass_center: einsum(body_mass, xipos) / Σ body_mass, x and y. */
const massCentre = (d: MjData): [number, number] => {
  const mass = Array.from(m.body_mass as Float64Array),
    xipos = d.xipos as Float64Array,
    total = mass.reduce((s, x) => s + x, 0);
  return [0, 1].map((j) => mass.reduce((s, w, b) => s + w * xipos[3 * b + j]!, 0) / total) as [number, number];
};

/** v5:L436-470 _get_obs with the default arguments: qpos[2:], qvel, cinert[1:], cvel[1:], qfrc_actuator[6:], cfrc_ext[1:]. */
const gymObs = (d: MjData) => [
  ...rows(d.qpos as Float64Array, 2),
  ...rows(d.qvel as Float64Array, 0),
  ...rows(d.cinert as Float64Array, 10),
  ...rows(d.cvel as Float64Array, 6),
  ...rows(d.qfrc_actuator as Float64Array, 6),
  ...rows(d.cfrc_ext as Float64Array, 6),
];

/** One Gymnasium step from (qpos, qvel) with an action, by hand on a raw MjData. */
const gymStep = (qpos: number[], qvel: number[], action: number[]) => {
  const r = new mj.MjData(m);
  (r.qpos as Float64Array).set(qpos);
  (r.qvel as Float64Array).set(qvel);
  mj.mj_forward(m, r);
  const before = massCentre(r);
  (r.ctrl as Float64Array).set(action);
  for (let k = 0; k < 5; k++) mj.mj_step(m, r);
  mj.mj_rnePostConstraint(m, r);
  const after = massCentre(r);
  const z = (r.qpos as Float64Array)[2]!;
  const xVelocity = (after[0] - before[0]) / DT;
  const healthy = 1 < z && z < 2; // v5:L432
  const contactRaw = 5e-7 * sq(r.cfrc_ext as Float64Array); // v5:L424
  const terms = {
    forward: 1.25 * xVelocity, // v5:L500
    healthy: healthy ? 5 : 0, // v5:L415
    ctrl: -0.1 * sq(action), // v5:L418
    contact: -Math.min(contactRaw, 10), // v5:L426 clip to (−inf, 10)
  };
  const out = {
    obs: gymObs(r),
    terms,
    contactRaw,
    total: terms.forward + terms.healthy + terms.ctrl + terms.contact,
    xVelocity,
    torsoVx: ((r.qpos as Float64Array)[0]! - qpos[0]!) / DT,
    progress: after[0] - before[0],
    terminated: !healthy,
    xPosition: (r.qpos as Float64Array)[0]!,
    tendon: [...Array.from(r.ten_length as Float64Array), ...Array.from(r.ten_velocity as Float64Array)],
  };
  r.delete();
  return out;
};

/** The env in (qpos, qvel) after its reset, as the other MuJoCo tests set a state. */
const envAt = (qpos: number[], qvel: number[]) => {
  const env = task.makeEnv(task.generate(0), 1) as MujocoVecEnv;
  env.reset(0);
  const d = env.data(0);
  (d.qpos as Float64Array).set(qpos);
  (d.qvel as Float64Array).set(qvel);
  mj.mj_forward(m, d);
  return env;
};

const humanReward = (obs: ArrayLike<number>, action: number[], nextObs: ArrayLike<number>, info: Record<string, Float64Array>) => {
  const named = (names: readonly string[], v: ArrayLike<number>) => Object.fromEntries(names.map((n, k) => [n, v[k]]));
  const reward = new Function(`${task.humanReward}\nreturn reward;`)() as (...a: unknown[]) => { total: number; components: Record<string, number> };
  const i = Object.fromEntries(task.info.map((n) => [n, info[n]![0]]));
  return reward(named(task.observation, obs), named(task.actionNames, action), named(task.observation, nextObs), i);
};

const bump = (by: Record<number, number>) => Array.from(m.qpos0 as Float64Array, (v, k) => v + (by[k] ?? 0));
const still = () => new Array<number>(23).fill(0);
const ACTION = HUMANOID_ACTIONS.map((_, k) => 0.4 * Math.sin(1.7 * k + 0.3));

describe("Humanoid-v5's model", () => {
  it("is Gymnasium's humanoid.xml byte for byte", () => {
    const bytes = readFileSync(assetPath("humanoid.xml"));
    const blob = createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
    expect(blob, `gymnasium/envs/mujoco/assets/humanoid.xml at ${SOURCE}`).toBe(HUMANOID_XML_BLOB);
  });

  it("has the bodies, joints and actuators the task names, in its order, and v5's sizes", () => {
    const name = (type: { value: number }, id: number) => mj.mj_id2name(m, type.value, id);
    expect([m.nq, m.nv, m.nu, m.nbody, m.ntendon]).toEqual([24, 23, 17, 14, 2]);
    expect(Array.from({ length: 13 }, (_, b) => name(mj.mjtObj.mjOBJ_BODY, b + 1))).toEqual([...HUMANOID_BODIES]);
    expect(Array.from({ length: 17 }, (_, j) => name(mj.mjtObj.mjOBJ_JOINT, j + 1))).toEqual([...HUMANOID_JOINTS]);
    expect(Array.from({ length: 17 }, (_, a) => name(mj.mjtObj.mjOBJ_ACTUATOR, a))).toEqual([...HUMANOID_ACTIONS]);
    expect([0, 1].map((t) => name(mj.mjtObj.mjOBJ_TENDON, t))).toEqual(["left_hipknee", "right_hipknee"]);
    // v5:L388-393: 24 + 23 − 2 + 13·10 + 13·6 + (23 − 6) + 13·6 = 348.
    expect(task.observation).toHaveLength(348);
    expect(new Set(task.observation).size).toBe(348);
    expect(task.maxEpisodeSteps).toBe(1000);
  });
});

describe("Humanoid-v5's step by hand", () => {
  const CASES: { name: string; by: Record<number, number>; qvel: number[]; ends: boolean; clipped: boolean }[] = [
    {
      name: "standing, perturbed, acting",
      by: { 0: 0.1, 2: -0.05, 7: 0.1, 10: -0.2, 13: 0.3, 18: 0.2 },
      qvel: [0.8, 0.1, -0.3, 0.2, -0.1, 0.4, ...new Array<number>(17).fill(0.5)],
      ends: false,
      clipped: false,
    },
    {
      name: "feet driven into the floor: contact cost clipped at 10",
      by: { 2: -0.3 },
      qvel: [0, 0, -5, ...new Array<number>(20).fill(0)],
      ends: false,
      clipped: true,
    },
    { name: "just under 2.0 m after the step (starts above it)", by: { 2: 0.6005 }, qvel: still(), ends: false, clipped: false },
    { name: "above 2.0 m after the step", by: { 2: 0.603 }, qvel: still(), ends: true, clipped: false },
    { name: "below 1.0 m after the step", by: { 2: -0.5, 3: Math.SQRT1_2 - 1, 5: Math.SQRT1_2 }, qvel: still(), ends: true, clipped: false },
  ];

  it.each(CASES)("$name: observation, info, human reward, F and termination", ({ by, qvel, ends, clipped }) => {
    const qpos = bump(by);
    const want = gymStep(qpos, qvel, ACTION);
    expect(want.terminated).toBe(ends);
    expect(want.contactRaw > 10).toBe(clipped);
    const env = envAt(qpos, qvel);
    const obs = Float64Array.from(gymObs(env.data(0)));
    const b = env.step(Float64Array.from(ACTION));
    expect(Array.from(b.nextObs)).toEqual(want.obs);
    expect(b.terminated[0]).toBe(ends ? 1 : 0);
    expect(b.truncated[0]).toBe(0);
    expect(b.fitness[0]).toBeCloseTo(want.progress, 12);
    expect(b.info.x_velocity![0]).toBeCloseTo(want.xVelocity, 9);
    expect(b.info.x_position![0]).toBe(want.xPosition); // v5:L484 qpos[0], not the centre of mass
    expect(
      ["left", "right"]
        .flatMap((s) => [`tendon_length_${s}_hipknee`])
        .concat(["left", "right"].map((s) => `tendon_velocity_${s}_hipknee`))
        .map((n) => b.info[n]![0]),
    ).toEqual(want.tendon);
    const got = humanReward(obs, ACTION, b.nextObs, b.info);
    for (const [k, v] of Object.entries(want.terms)) expect(got.components[k], k).toBeCloseTo(v, 9);
    expect(got.total).toBeCloseTo(want.total, 9);
    env.close();
  });

  it("the forward velocity is the centre of mass's (mass-weighted xipos), not the torso's", () => {
    // The torso at rest while the limbs swing: the centre of mass moves, the torso hardly.
    const qpos = bump({}),
      qvel = [0, 0, 0, 0, 0, 0, ...new Array<number>(17).fill(4)];
    const want = gymStep(qpos, qvel, ACTION);
    const env = envAt(qpos, qvel);
    const b = env.step(Float64Array.from(ACTION));
    expect(Math.abs(want.xVelocity - want.torsoVx)).toBeGreaterThan(1);
    expect(b.info.x_velocity![0]).toBeCloseTo(want.xVelocity, 9);
    expect(b.info.x_progress![0]! / env.stepSeconds()).toBeCloseTo(want.xVelocity, 9);
    env.close();
  });

  it("healthy is 1.0 < z < 2.0 with both bounds excluded (v5:L432)", () => {
    expect([1, 1 + 1e-12, 1.4, 2 - 1e-12, 2].map(humanoidHealthy)).toEqual([false, true, true, true, false]);
  });
});

describe("Humanoid-v5's episodes", () => {
  it("reset: qpos0 + U(±0.01), qvel U(±0.01) (v5:L519-528), and the observation of that state", () => {
    const env = task.makeEnv(task.generate(0), 1) as MujocoVecEnv;
    const qpos0 = Array.from(m.qpos0 as Float64Array);
    const noise: number[] = [];
    for (let seed = 0; seed < 20; seed++) {
      const obs = env.reset(seed);
      const d = env.data(0);
      noise.push(...Array.from(d.qpos as Float64Array, (v, k) => v - qpos0[k]!), ...Array.from(d.qvel as Float64Array));
      expect(Array.from(obs)).toEqual(gymObs(d));
      expect(Array.from(obs.subarray(348 - 78))).toEqual(new Array(78).fill(0)); // no contact force before a step
    }
    const abs = noise.map(Math.abs);
    expect(Math.max(...abs)).toBeLessThanOrEqual(0.01);
    expect(Math.max(...abs)).toBeGreaterThan(0.0099);
    // E|U(−s, s)| = s/2 = 0.005; over 940 draws its standard error is ~1e-4 (0.01·N(0, 1) would give ~0.008).
    expect(abs.reduce((s, x) => s + x, 0) / abs.length).toBeGreaterThan(0.0045);
    expect(abs.reduce((s, x) => s + x, 0) / abs.length).toBeLessThan(0.0055);
    env.close();
  });

  it("are truncated at the 1000th step (gymnasium/envs/__init__.py: max_episode_steps=1000)", () => {
    const standing = Array.from(m.qpos0 as Float64Array);
    const env = envAt(standing, still());
    const ends: number[] = [];
    for (let s = 1; s <= 1000; s++) {
      // Held standing still before each step, so that only the time limit can end the episode.
      const d = env.data(0);
      (d.qpos as Float64Array).set(standing);
      (d.qvel as Float64Array).fill(0);
      mj.mj_forward(m, d);
      const b = env.step(new Float64Array(17));
      if (b.terminated[0]) ends.push(-s);
      if (b.truncated[0]) ends.push(s);
    }
    expect(ends).toEqual([1000]);
    env.close();
  });
});

describe("the humanoid task", () => {
  it("has a sparse reward (forward progress) unlike its human reward (Gymnasium's), which the description never shows", () => {
    expect(task.sparseReward).toMatch(/info\.x_progress/);
    expect(task.sparseReward.replace(/\s+/g, "")).not.toBe(task.humanReward!.replace(/\s+/g, ""));
    expect(task.description).not.toContain(task.humanReward!);
    for (const n of [...task.info, "cinert_B_K", "cvel_B_K", "contact_B_K"]) expect(task.description).toContain(n);
  });

  it("names each observation block where v5 puts it: cinert's last entry of a body is its mass", () => {
    const env = envAt(Array.from(m.qpos0 as Float64Array), still());
    const obs = gymObs(env.data(0));
    const at = (n: string) => obs[task.observation.indexOf(n)]!;
    HUMANOID_BODIES.forEach((b, k) => expect(at(`cinert_${b}_9`)).toBeCloseTo((m.body_mass as Float64Array)[k + 1]!, 12));
    expect(at("torso_z")).toBe(1.4);
    expect(task.observation.indexOf("abdomen_z_speed")).toBe(22 + 6);
    expect(task.observation.indexOf("abdomen_z_actuator_force")).toBe(45 + 130 + 78);
    expect(task.observation.at(-1)).toBe("contact_left_lower_arm_5");
    env.close();
  });
});
