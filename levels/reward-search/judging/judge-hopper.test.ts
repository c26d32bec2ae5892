import { beforeAll, describe, expect, it } from "vitest";
import { createRng } from "../../../src/util/rng.ts";
import type { MujocoVecEnv } from "../envs/mujoco/mujoco-env.ts";
import { mujocoRuntime } from "../envs/mujoco/runtime.ts";
import { getTask, loadTask } from "../tasks/index.ts";
import type { JointRow, TrajectoryRecord } from "../trajectory/record.ts";
import { parseCriteria } from "./criteria.ts";
import { judgeTrajectory, makeJudge } from "./judge.ts";

const STEPS = 5;
const JOINT_TYPES = ["free", "ball", "slide", "hinge"] as const;
const OBJ_BODY = 1,
  OBJ_JOINT = 3;

/**
 * Hopper stepped 5 times with seeded random actions, read into a TrajectoryRecord straight from MuJoCo's data
 * (the shape the episode recorder writes; built here so that the judge is tested on a real rollout).
 */
function hopperRollout(seed: number): TrajectoryRecord {
  const task = getTask("hopper");
  const env = task.makeEnv(task.generate(0), 1) as MujocoVecEnv;
  try {
    const firstObs = Float64Array.from(env.reset(seed));
    const m = env.model(),
      d = env.data(0),
      mj = mujocoRuntime("judge-hopper.test");
    const nbody = m.nbody as number,
      nq = m.nq as number,
      nv = m.nv as number;
    const grab = () => {
      mj.mj_rnePostConstraint(m, d);
      return {
        qpos: (d.qpos as Float64Array).slice(),
        qvel: (d.qvel as Float64Array).slice(),
        xpos: (d.xpos as Float64Array).slice(),
        xquat: (d.xquat as Float64Array).slice(),
        cvel: (d.cvel as Float64Array).slice(),
        cfrcExt: (d.cfrc_ext as Float64Array).slice(),
      };
    };
    const initial = grab();
    const rng = createRng(seed);
    const rows: ReturnType<typeof grab>[] = [];
    const obs: number[] = [],
      action: number[] = [],
      terms: number[] = [],
      terminated: number[] = [],
      truncated: number[] = [];
    for (let t = 0; t < STEPS; t++) {
      const a = Float64Array.from({ length: 3 }, () => rng.uniform(-1, 1));
      const s = env.step(a);
      rows.push(grab());
      obs.push(...s.nextObs);
      action.push(...a);
      terms.push(s.info.x_velocity![0]!, s.fitness[0]!);
      terminated.push(s.terminated[0]!);
      truncated.push(s.truncated[0]!);
    }
    const cat = (k: keyof ReturnType<typeof grab>) => Float64Array.from(rows.flatMap((r) => [...r[k]]));
    const type = m.jnt_type as Int32Array,
      qadr = m.jnt_qposadr as Int32Array,
      dadr = m.jnt_dofadr as Int32Array,
      axis = m.jnt_axis as Float64Array,
      range = m.jnt_range as Float64Array,
      limited = m.jnt_limited as Uint8Array,
      jbody = m.jnt_bodyid as Int32Array,
      parent = m.body_parentid as Int32Array;
    const joints: JointRow[] = Array.from({ length: m.njnt as number }, (_, j) => ({
      index: j,
      name: mj.mj_id2name(m, OBJ_JOINT, j),
      type: JOINT_TYPES[type[j]!]!,
      body: jbody[j]!,
      qposAdr: qadr[j]!,
      dofAdr: dadr[j]!,
      axis: [axis[3 * j]!, axis[3 * j + 1]!, axis[3 * j + 2]!],
      range: limited[j] ? [range[2 * j]!, range[2 * j + 1]!] : null,
    }));
    return {
      header: {
        schemaVersion: 1,
        task: "hopper",
        model: "hopper.xml",
        dt: env.stepSeconds(),
        nq,
        nv,
        nbody,
        obsDim: env.obsDim,
        actionDim: 3,
        bodies: Array.from({ length: nbody }, (_, i) => ({ index: i, name: mj.mj_id2name(m, OBJ_BODY, i), parent: parent[i]! })),
        joints,
        forward: [1, 0, 0],
        terms: ["x_velocity", "F"],
      },
      initial: { obs: firstObs, qpos: initial.qpos, qvel: initial.qvel, xpos: initial.xpos, xquat: initial.xquat },
      steps: STEPS,
      columns: {
        obs: Float64Array.from(obs),
        action: Float64Array.from(action),
        terms: Float64Array.from(terms),
        qpos: cat("qpos"),
        qvel: cat("qvel"),
        xpos: cat("xpos"),
        xquat: cat("xquat"),
        cvel: cat("cvel"),
        cfrcExt: cat("cfrcExt"),
        terminated: Uint8Array.from(terminated),
        truncated: Uint8Array.from(truncated),
      },
    };
  } finally {
    env.close();
  }
}

/** What an authored hopper judge looks like: it finds the torso by name, measures height and travel per leaf. */
const HOPPER_JUDGE = `
function judge(traj) {
  const torso = traj.header.bodies.findIndex((b) => b.name === "torso");
  if (torso < 0) throw new Error("no torso body");
  const last = traj.steps - 1;
  const x = (t) => traj.row("xpos", t)[3 * torso], z = (t) => traj.row("xpos", t)[3 * torso + 2];
  let minZ = Infinity;
  for (let t = 0; t < traj.steps; t++) minZ = Math.min(minZ, z(t));
  const travel = x(last) - traj.initial.xpos[3 * torso];
  const upright = minZ > 0.8;
  return [
    { id: "1", value: minZ, score: upright ? 1 : Math.max(0, minZ / 0.8), passed: upright, note: "lowest torso height " + minZ.toFixed(3) + " m" },
    { id: "2", value: travel, score: Math.max(0, Math.min(1, travel / 1)), passed: travel >= 1, note: "forward travel " + travel.toFixed(4) + " m" },
  ];
}`;

const tree = parseCriteria({
  order: "sequential",
  children: [
    { id: "1", name: "stays up", metric: "min torso z", threshold: "> 0.8 m", partial: "z / 0.8", mustKeep: true },
    { id: "2", name: "moves forward", metric: "torso x travel", threshold: ">= 1 m", partial: "linear from 0" },
  ],
});

beforeAll(async () => {
  await loadTask("hopper");
}, 120_000);

describe("a code judge on a real hopper rollout (5 random-action steps)", () => {
  it("reads the MuJoCo columns by body name and scores the tree from its leaves", async () => {
    const record = hopperRollout(3);
    expect(record.header.bodies.map((b) => b.name)).toEqual(["world", "torso", "thigh", "leg", "foot"]);
    const j = await judgeTrajectory(makeJudge("hopper_forward", { intent: "hop forward 1 m without falling", tree, code: HOPPER_JUDGE }), "hopper-s3", record);
    expect(j.fault).toBeUndefined();
    const [stays, moves] = j.nodes;
    const torsoZ = Array.from({ length: STEPS }, (_, t) => record.columns.xpos[t * 15 + 5]!);
    expect(stays!.leaf).toMatchObject({ status: "PASS", result: { value: Math.min(...torsoZ), score: 1 } });
    expect(moves!.leaf!.status).toBe("FAIL");
    expect(Math.abs(moves!.leaf!.result.value as number)).toBeLessThan(0.1);
    expect(j.score).toBeCloseTo(0.5 + 0.5 * moves!.score, 12);
  });
});
