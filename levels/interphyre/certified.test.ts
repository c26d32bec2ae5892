import { describe, expect, it } from "vitest";
import { rollout } from "./world/rollout.ts";
import { checkPlacement } from "./world/placement.ts";
import { readCertified } from "./certified-seeds.ts";
import { listLevels } from "./levels/index.ts";
import { createInstance } from "./instance.ts";

const SAMPLE = 4;

describe.each(listLevels())("certified seeds of %s", (id) => {
  const data = readCertified(id);

  it("ships at least 120 certified seeds, each decided once", () => {
    expect(data).toBeDefined();
    expect(data!.seeds.length).toBeGreaterThanOrEqual(120);
    const all = [...data!.seeds, ...data!.rejected].map((s) => s.seed);
    expect(new Set(all).size).toBe(all.length);
  });

  it("replays a sample of stored solutions: each succeeds, and the scene does not solve itself", () => {
    const seeds = data!.seeds;
    const picks = [0, Math.floor(seeds.length / 3), Math.floor((2 * seeds.length) / 3), seeds.length - 1].slice(0, SAMPLE);
    for (const i of picks) {
      const entry = seeds[i]!;
      const inst = createInstance(id, entry.seed);
      const [x, y, radius] = entry.solution;
      const placed = checkPlacement(inst.scene, { x, y, radius }, inst.bounds);
      expect(placed.ok, `seed ${entry.seed}`).toBe(true);
      const solved = rollout({ ...inst, action: { x, y, radius } }, { horizon: data!.budget.horizon, recordContacts: false });
      expect(solved.successStep, `seed ${entry.seed}`).toBe(entry.successStep);
      const idle = rollout({ ...inst }, { horizon: data!.budget.trivialHorizon, recordContacts: false, stopWhenSettled: true });
      expect(idle.success, `seed ${entry.seed} without action`).toBe(false);
    }
  });
});
