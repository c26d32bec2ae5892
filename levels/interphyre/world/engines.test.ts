import { describe, expect, it } from "vitest";
import { createInstance } from "../instance.ts";
import { readCertified } from "../certified-seeds.ts";
import { ENGINES, loadEngine } from "./engines.ts";
import { rollout } from "./rollout.ts";
import { parseScene } from "./scene.ts";
import { Simulation } from "./simulation.ts";

/** The behaviour every engine must give the world (docs/spec/interphyre.md §1.4–1.6), whatever its numbers. */
const factories = new Map(await Promise.all(ENGINES.map(async (n) => [n, await loadEngine(n)] as const)));

const certifiedSpec = (level: string, i: number) => {
  const s = readCertified(level)!.seeds[i]!;
  const [x, y, radius] = s.solution;
  return { ...createInstance(level, s.seed), action: { x, y, radius } };
};

describe.each(ENGINES)("the %s engine", (name) => {
  const engine = factories.get(name)!;

  it("builds the objects in sorted name order and the red ball last", () => {
    const spec = certifiedSpec("catapult", 0);
    const sim = new Simulation(spec, { engine });
    expect(sim.engine.names()).toEqual([...Object.keys(spec.scene).sort(), "red_ball"]);
    sim.close();
  });

  it("plays the same episode for the same seed, bit for bit", () => {
    const trace = () => {
      const frames: unknown[] = [];
      const r = rollout(certifiedSpec("pass_the_parcel", 1), { engine, horizon: 600, onStep: (sim) => void frames.push(sim.state()) });
      return { frames, log: r.sim.contacts.log, success: r.success };
    };
    expect(trace()).toStrictEqual(trace());
  });

  it("reports sensor contacts: the ball meets the basket in the sensor box, above the floor", () => {
    const scene = parseScene({
      basket: { type: "basket", x: 0, y: -4.9, scale: 1, dynamic: false },
      ball: { x: 0, y: 2, radius: 0.2 },
    });
    const heights: number[] = [];
    const r = rollout({ scene, goal: ["ball", "basket"] }, { engine, horizon: 400, onStep: (sim) => void heights.push(sim.object("ball").y) });
    const first = r.sim.contacts.log.find((e) => e.event === "begin" && [e.a, e.b].sort().join() === "ball,basket")!;
    // The floor's top is 0.175 above the basket's base; the sensor box reaches 0.6 above it.
    expect(heights[first.step - 1]! - 0.2).toBeGreaterThan(-4.9 + 0.175 + 0.3);
    expect(r.success).toBe(true);
  });

  it("walls have names in the contact log", () => {
    const scene = parseScene({ ball: { x: 0, y: 0, radius: 0.3 }, floor: { x: 4, y: 4, radius: 0.1, dynamic: false } });
    const r = rollout({ scene, goal: ["ball", "floor"] }, { engine, horizon: 120 });
    expect(r.sim.contacts.log.some((e) => e.event === "begin" && [e.a, e.b].includes("bottom_wall"))).toBe(true);
  });

  it("declares success 180 or 181 steps after the goal pair's last begin, on the float64 clock", () => {
    let checked = 0;
    for (const level of ["two_body_problem", "down_to_earth", "tipping_point"]) {
      for (let i = 0; i < 3; i++) {
        const spec = certifiedSpec(level, i);
        const r = rollout(spec, { engine, horizon: 2000 });
        if (!r.success) continue;
        const [a, b] = spec.goal;
        const begin = r.sim.contacts.log.filter((e) => e.event === "begin" && [e.a, e.b].sort().join() === [a, b].sort().join()).at(-1)!;
        expect([180, 181]).toContain(r.successStep! - begin.step + 1);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(6);
  });

  it("keeps a closed world's last state readable", () => {
    const r = rollout(certifiedSpec("catapult", 2), { engine, horizon: 300 });
    const before = r.sim.state();
    r.sim.close();
    expect(r.sim.state()).toStrictEqual(before);
    expect(r.sim.engine.has("red_ball")).toBe(true);
  });
});
