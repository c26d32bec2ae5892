import { beforeAll, describe, expect, it } from "vitest";
import { createRng } from "../../../src/util/rng.ts";
import { getTask, loadTask } from "../tasks/index.ts";
import type { TrajectoryRecord } from "../trajectory/record.ts";
import { recordEpisode } from "../trajectory/recorder.ts";
import { parseCriteria } from "./criteria.ts";
import { judgeTrajectory, makeJudge } from "./judge.ts";

const STEPS = 5;

/** Hopper recorded for 5 steps of seeded random actions by the episode recorder: the judge is tested on a real rollout. */
function hopperRollout(seed: number): TrajectoryRecord {
  const task = getTask("hopper");
  const rng = createRng(seed);
  return recordEpisode({ task, instance: task.generate(0), act: () => Float64Array.from({ length: 3 }, () => rng.uniform(-1, 1)), seed, maxSteps: STEPS });
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
