import { describe, expect, it } from "vitest";
import { createInstance } from "../instance.ts";
import { loadEngine } from "./engines.ts";
import { box2d, wasmHeapBytes, wasmHighWater } from "./box2d-wasm.ts";
import { rollout } from "./rollout.ts";
import { Simulation } from "./simulation.ts";
import { box23Coefficient, factor23, factor24 } from "./box2d-damping.ts";

const engine = await loadEngine("box2d-wasm");
const cached = () => [box2d.b2Body, box2d.b2Fixture, box2d.b2Vec2, box2d.b2Contact].map((c) => Object.keys(box2d.getCache(c)).length);

describe("the box2d-wasm engine", () => {
  it("damps with Box2D 2.3's float32 factor through 2.4.1's formula: exactly at Interphyre's 0 and 0.01", () => {
    for (const c of [0, 0.01]) expect(factor24(box23Coefficient(c))).toBe(factor23(c));
    for (const c of [0.1, 0.5, 2, 7.3]) expect(Math.abs(factor24(box23Coefficient(c)) - factor23(c)), `c=${c}`).toBeLessThanOrEqual(2 ** -23);
  });

  it("refuses to step a destroyed world", () => {
    const r = rollout({ ...createInstance("catapult", 0), action: { x: 1.39, y: -1.22, radius: 1.09 } }, { engine, horizon: 10 });
    expect(() => r.sim.step()).toThrow(/destroyed/);
  });

  it("frees every world: the wasm heap and the bindings' caches stay flat over 2,000 worlds", () => {
    const spec = { ...createInstance("catapult", 0), action: { x: 1.39, y: -1.22, radius: 1.09 } };
    const cycle = () => {
      const sim = new Simulation(spec, { engine });
      for (let i = 0; i < 40; i++) sim.step();
      sim.apply({ kind: "remove", object: "red_ball" });
      sim.apply({ kind: "add", object: "extra", spec: { x: -4, y: 4, radius: 0.3 } });
      sim.step();
      sim.close();
    };
    for (let i = 0; i < 200; i++) cycle();
    const before = { heap: wasmHeapBytes(), top: wasmHighWater(), cached: cached() };
    for (let i = 0; i < 2000; i++) cycle();
    expect({ heap: wasmHeapBytes(), top: wasmHighWater(), cached: cached() }).toEqual(before);
  });
});
