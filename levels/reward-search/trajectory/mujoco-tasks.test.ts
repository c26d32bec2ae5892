import { beforeAll, describe, expect, it } from "vitest";
import { getTask, listTasks, loadTask } from "../tasks/index.ts";
import { recordEpisode } from "./recorder.ts";
import { decodeTrajectory, encodeTrajectory } from "./trajectory-file.ts";

const mujoco = listTasks()
  .map((id) => getTask(id))
  .filter((t) => t.prepare !== undefined);

beforeAll(async () => {
  for (const t of mujoco) await loadTask(t.id);
}, 300_000);

describe.each(mujoco.map((t) => [t.id, t] as const))("a trajectory of %s", (_id, task) => {
  it("records a few steps whose header agrees with the model, and round-trips through its file", () => {
    const instance = task.generate(0);
    const r = recordEpisode({ task, instance, seed: instance.evalSeeds[0]!, act: () => new Float64Array(task.actionNames.length), maxSteps: 5 });
    const { header: h } = r;
    expect(h.bodies[0]!.name).toBe("world");
    expect(h.joints.length).toBeGreaterThan(0);
    const width = { free: 7, ball: 4, slide: 1, hinge: 1 } as const;
    expect(h.joints.reduce((n, j) => n + width[j.type], 0)).toBe(h.nq);
    expect(h.actionDim).toBe(task.actionNames.length);
    expect(h.obsDim).toBe(task.observation.length);
    // Each body's orientation is a unit quaternion on every recorded step.
    for (let k = 0; k < r.steps * h.nbody; k++) expect(Math.hypot(...r.columns.xquat.subarray(4 * k, 4 * k + 4))).toBeCloseTo(1, 9);
    expect(decodeTrajectory(encodeTrajectory(r), `${task.id}.bin`)).toEqual(r);
  });
});
