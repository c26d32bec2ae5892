import { readdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ACTION_OBJECT } from "../world/constants.ts";
import { ConfigError } from "../../../src/errors.ts";
import { parseScene } from "../world/scene.ts";
import { Simulation } from "../world/simulation.ts";
import { getLevel, listLevels } from "./index.ts";
import { createInstance } from "../instance.ts";

const here = dirname(fileURLToPath(import.meta.url));
/** The folder holds the levels and their registry (index.ts, define-level.ts) only. */
const SUPPORT = new Set(["define-level.ts", "index.ts"]);

describe("level registry", () => {
  it("has all 25 Interphyre levels, each file named by its id", () => {
    const files = readdirSync(here).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !SUPPORT.has(f));
    expect(listLevels()).toHaveLength(25);
    expect(files.map((f) => f.replace(/\.ts$/, "")).sort()).toEqual([...listLevels()].sort());
    for (const id of listLevels()) expect(getLevel(id).id).toBe(id);
  });

  it("names the known levels when an id is unknown", () => {
    expect(() => getLevel("catapults")).toThrow(ConfigError);
    expect(() => getLevel("catapults")).toThrow(/unknown level 'catapults'; known: basket_case, catapult,/);
  });

  it("rejects a seed that is not a non-negative integer, by name", () => {
    expect(() => createInstance("catapult", 1.5)).toThrow(/seed must be a non-negative integer \(got 1.5\)/);
    expect(() => createInstance("catapult", Number.NaN)).toThrow(/seed must be a non-negative integer/);
  });
});

describe.each(listLevels())("%s", (id) => {
  it("generates the same valid scene for the same seed, a different one for another", () => {
    const a = createInstance(id, 11);
    expect(createInstance(id, 11)).toStrictEqual(a);
    expect(createInstance(id, 12).scene).not.toStrictEqual(a.scene);
    expect(parseScene(JSON.parse(JSON.stringify(a.scene)))).toStrictEqual(a.scene);
    expect(a.scene[ACTION_OBJECT]).toBeUndefined();
    for (const name of a.goal) expect(Object.keys(a.scene)).toContain(name);
  });

  it("describes the scene and goal without hinting at a strategy", () => {
    const { description, goal } = getLevel(id);
    expect(description).toMatch(/Goal: /);
    expect(description).toContain(goal[0].replace(/_/g, " "));
    expect(description).not.toMatch(/\b(knock|launch|push|nudge it|drop the red|place the red|you should|try)\b/i);
  });

  it("builds and steps with the red ball", () => {
    const inst = createInstance(id, 5);
    const sim = new Simulation({ ...inst, action: { x: 0, y: 4.5, radius: 0.2 } });
    for (let i = 0; i < 60; i++) sim.step();
    const state = sim.state();
    expect(Object.keys(state).sort()).toEqual([...Object.keys(inst.scene), ACTION_OBJECT].sort());
    expect(state[ACTION_OBJECT]!.y).toBeLessThan(4.5);
  });
});
