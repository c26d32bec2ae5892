import { beforeAll, describe, expect, it } from "vitest";
import { createRng } from "../../../src/util/rng.ts";
import type { MujocoVecEnv } from "../envs/mujoco/mujoco-env.ts";
import { getTask, loadTask } from "../tasks/index.ts";
import { recordEpisode } from "./recorder.ts";

const hopper = getTask("hopper");
const instance = hopper.generate(0);
const SEED = instance.evalSeeds[0]!;

beforeAll(async () => {
  await loadTask("hopper");
}, 120_000);

/** A fixed linear policy of the observation (no network: this tier runs no compiler), as greedy as an evaluation's. */
const linearPolicy = (seed: number) => {
  const rng = createRng(seed);
  const w = Array.from({ length: 3 * 11 }, () => rng.uniform(-0.3, 0.3));
  return (obs: Float64Array) => Float64Array.from({ length: 3 }, (_, a) => w.slice(11 * a, 11 * a + 11).reduce((s, v, k) => s + v * obs[k]!, 0));
};

/** Large, varied actions (some outside [−1, 1], so clipping shows), a function of the observation. */
const wild = (obs: Float64Array) => Float64Array.of(3 * Math.sin(7 * obs[0]!), 2 * Math.cos(5 * obs[1]!), 1.5 * Math.sin(obs[5]! + 1));

/** The same episode without a recorder: every batch and, while the episode runs, env 0's qpos after the step. */
const plainEpisode = (act: (obs: Float64Array) => Float64Array | Int32Array) => {
  const env = hopper.makeEnv(instance, 1) as MujocoVecEnv;
  let obs = env.reset(SEED);
  const batches = [];
  const qpos: Float64Array[] = [];
  for (let t = 0; t < hopper.maxEpisodeSteps; t++) {
    const b = env.step(act(obs));
    batches.push(b);
    qpos.push((env.data(0).qpos as Float64Array).slice());
    if (b.terminated[0] || b.truncated[0]) break;
    obs = b.obs;
  }
  env.close();
  return { batches, qpos };
};

const row = (a: Float64Array | Uint8Array, width: number, t: number) => Array.from(a.subarray(t * width, (t + 1) * width));

describe("recording a hopper episode", () => {
  const act = linearPolicy(3);
  const seen: Float64Array[] = [];
  const rec = () => recordEpisode({ task: hopper, instance, seed: SEED, act: (obs) => (seen.push(obs.slice()), act(obs)) });

  it("records the episode an unrecorded evaluation plays: its length, observations, qpos, terms and end", () => {
    const r = rec();
    const plain = plainEpisode(act);
    const { nq, obsDim, terms } = r.header;
    expect(r.steps).toBe(plain.batches.length);
    for (let t = 0; t < r.steps; t++) {
      const b = plain.batches[t]!;
      expect(row(r.columns.obs, obsDim, t)).toEqual(Array.from(b.nextObs));
      expect(row(r.columns.terms, terms.length, t)).toEqual([...hopper.info.map((k) => b.info[k]![0]!), b.fitness[0]!]);
      // After the last step the env has reset itself: its data shows the next episode, not this one.
      if (t < r.steps - 1) expect(row(r.columns.qpos, nq, t)).toEqual(Array.from(plain.qpos[t]!));
    }
  });

  it("ends with terminated on the step the hopper falls, and on no other", () => {
    const r = rec();
    const { nq } = r.header;
    expect(r.steps).toBeLessThan(hopper.maxEpisodeSteps);
    expect(Array.from(r.columns.terminated).indexOf(1)).toBe(r.steps - 1);
    expect(r.columns.truncated.every((v) => v === 0)).toBe(true);
    const [, z, angle] = row(r.columns.qpos, nq, r.steps - 1);
    expect(z! <= 0.7 || Math.abs(angle!) >= 0.2).toBe(true);
  });

  it("holds what the policy saw: initial.obs, then each step's observation", () => {
    seen.length = 0;
    const r = rec();
    const { obsDim } = r.header;
    expect(seen).toHaveLength(r.steps);
    expect(Array.from(seen[0]!)).toEqual(Array.from(r.initial.obs));
    for (let t = 1; t < r.steps; t++) expect(Array.from(seen[t]!)).toEqual(row(r.columns.obs, obsDim, t - 1));
  });

  it("places the torso at qpos's x and z, in the initial state and on every step", () => {
    const r = rec();
    const torso = r.header.bodies.find((b) => b.name === "torso")!.index;
    const { nq } = r.header;
    expect(row(r.initial.xpos, r.header.nbody * 3, 0).slice(3 * torso, 3 * torso + 3)).toEqual([r.initial.qpos[0], 0, r.initial.qpos[1]]);
    for (let t = 0; t < r.steps; t++) {
      const [x, z] = row(r.columns.qpos, nq, t);
      const at = 3 * (t * r.header.nbody + torso);
      expect(r.columns.xpos[at]).toBeCloseTo(x!, 12);
      expect(r.columns.xpos[at + 2]).toBeCloseTo(z!, 12);
    }
  });

  it("records the applied action, clipped to [−1, 1], and the same episode as an unrecorded one with those actions", () => {
    const r = recordEpisode({ task: hopper, instance, seed: SEED, act: wild });
    const plain = plainEpisode(wild);
    expect(r.steps).toBe(plain.batches.length);
    expect(r.columns.action.every((a) => a >= -1 && a <= 1)).toBe(true);
    expect(r.columns.action.some((a) => Math.abs(a) === 1)).toBe(true);
    const last = r.steps - 1;
    expect(row(r.columns.obs, r.header.obsDim, last)).toEqual(Array.from(plain.batches[last]!.nextObs));
  });

  it("has contact forces on the foot from the step it lands, and none before it or on the bodies above it", () => {
    const r = rec();
    const { nbody, bodies } = r.header;
    const force = (name: string, t: number) =>
      row(r.columns.cfrcExt, 6 * nbody, t)
        .slice(6 * bodies.find((b) => b.name === name)!.index)
        .slice(0, 6);
    // The hopper starts a few centimetres above the floor: no contact at first, then the foot lands.
    const landed = Array.from({ length: r.steps }, (_, t) => force("foot", t)[5]!).findIndex((fz) => fz > 0);
    expect(landed).toBeGreaterThan(0);
    expect(force("foot", landed - 1)).toEqual([0, 0, 0, 0, 0, 0]);
    for (const name of ["torso", "thigh", "leg"]) expect(force(name, landed)).toEqual([0, 0, 0, 0, 0, 0]);
  });
});

describe("the model's tables", () => {
  it("name hopper's bodies and joints with parents, types, addresses, axes and limits", () => {
    const { header: h } = recordEpisode({ task: hopper, instance, seed: SEED, act: wild, maxSteps: 1 });
    expect(h.bodies.map((b) => [b.name, b.parent])).toEqual([
      ["world", 0],
      ["torso", 0],
      ["thigh", 1],
      ["leg", 2],
      ["foot", 3],
    ]);
    expect(h.joints.map((j) => [j.name, j.type, j.body, j.qposAdr, j.dofAdr])).toEqual([
      ["rootx", "slide", 1, 0, 0],
      ["rootz", "slide", 1, 1, 1],
      ["rooty", "hinge", 1, 2, 2],
      ["thigh_joint", "hinge", 2, 3, 3],
      ["leg_joint", "hinge", 3, 4, 4],
      ["foot_joint", "hinge", 4, 5, 5],
    ]);
    expect(h.joints[0]!.axis).toEqual([1, 0, 0]);
    expect(h.joints[0]!.range).toBeNull();
    expect(h.joints[3]!.range![0]).toBeCloseTo((-150 * Math.PI) / 180, 10);
    expect(h).toMatchObject({ task: "hopper", model: "hopper.xml", nq: 6, nv: 6, nbody: 5, obsDim: 11, actionDim: 3, forward: [1, 0, 0] });
    expect(h.dt).toBeCloseTo(0.008, 12);
    expect(h.terms).toEqual([...hopper.info, "fitness"]);
  });

  it("refuses a bound past the task's time limit or the byte bound, and a task that is not MuJoCo, naming them", () => {
    expect(() => recordEpisode({ task: hopper, instance, seed: SEED, act: wild, maxSteps: 1001 })).toThrow(
      /maxSteps must be an integer in \[1, 1000\].*\(got 1001\)/,
    );
    const long = { ...hopper, maxEpisodeSteps: 100_000 };
    expect(() => recordEpisode({ task: long, instance, seed: SEED, act: wild })).toThrow(
      /trajectory of hopper: steps: 100000 steps take \d+ bytes, over the 67108864-byte bound of a trajectory; record fewer steps/,
    );
    const cartpole = getTask("cartpole");
    expect(() => recordEpisode({ task: cartpole, instance: cartpole.generate(0), seed: 1, act: () => Int32Array.of(0) })).toThrow(
      /cartpole is not a MuJoCo task/,
    );
  });
});
