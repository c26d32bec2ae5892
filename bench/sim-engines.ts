/**
 * Engines side by side: steps/s of planck and box2d-wasm on Interphyre's fixture scenes of catapult and
 * pass_the_parcel (their certified solutions, 1000 steps each, never stopped early, sleeping and continuous
 * collision on), beside native Box2D's figures; then the wasm heap over many create/step/destroy cycles.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES_DIR } from "../test/support/fixtures.ts";
import { parseSceneFile } from "../families/interphyre/scene-check.ts";
import { getLevel } from "../families/interphyre/levels/index.ts";
import { RADIUS_MAX, RADIUS_MIN } from "../families/interphyre/world/constants.ts";
import { ENGINES, loadEngine } from "../families/interphyre/world/engines.ts";
import type { CreateEngine } from "../families/interphyre/world/engine.ts";
import { parseScene } from "../families/interphyre/world/scene.ts";
import { Simulation, type SimulationSpec } from "../families/interphyre/world/simulation.ts";

const LEVELS = ["catapult", "pass_the_parcel"] as const;
/** Native Box2D 2.4.1 (C++), same scenes and settings: the last measurement, not re-run here. */
const NATIVE_STEPS_PER_S = { catapult: 397_000, pass_the_parcel: 394_000 };

const fixtureSpecs = (level: string, count: number): SimulationSpec[] => {
  const file = parseSceneFile(JSON.parse(readFileSync(join(FIXTURES_DIR, `${level}.json`), "utf8")), level);
  const goal = getLevel(level).goal;
  return file.entries.slice(0, count).map((e) => {
    const [x, y, r] = e.solution;
    return { scene: parseScene(e.scene), goal, action: { x, y, radius: Math.min(RADIUS_MAX, Math.max(RADIUS_MIN, r)) } };
  });
};

/** This process's CPU seconds: on a shared machine they measure the engine, where wall time measures the neighbours. */
const cpuSeconds = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

const stepsPerSecond = (specs: SimulationSpec[], engine: CreateEngine): number => {
  const t0 = cpuSeconds();
  for (const spec of specs) {
    const sim = new Simulation(spec, { engine, recordContacts: false });
    for (let i = 0; i < 1000; i++) {
      sim.step();
      void sim.success;
    }
    sim.close();
  }
  return (specs.length * 1000) / (cpuSeconds() - t0);
};

export const benchEngines = async (scenes: number, worlds: number): Promise<void> => {
  const specs = Object.fromEntries(LEVELS.map((l) => [l, fixtureSpecs(l, scenes)]));
  const k = (v: number) => `${Math.round(v / 1000)}k`.padStart(18);
  console.log(`\n${"engine".padEnd(44)}${LEVELS.map((l) => l.padStart(18)).join("")}`);
  console.log(`${"native Box2D 2.4.1 (last measurement)".padEnd(44)}${LEVELS.map((l) => k(NATIVE_STEPS_PER_S[l])).join("")}`);
  for (const name of ENGINES) {
    const engine = await loadEngine(name);
    for (const l of LEVELS) stepsPerSecond(specs[l]!.slice(0, 2), engine); // warm the JIT
    console.log(`${name.padEnd(44)}${LEVELS.map((l) => k(stepsPerSecond(specs[l]!, engine))).join("")}`);
  }
  console.log(`(steps per CPU second; ${scenes} fixture scenes per level, their solutions, 1000 steps each)`);

  const { wasmHeapBytes, wasmHighWater } = await import("../families/interphyre/world/box2d-wasm.ts");
  const engine = await loadEngine("box2d-wasm");
  const spec = specs.catapult![0]!;
  const cycle = () => {
    const sim = new Simulation(spec, { engine, recordContacts: false });
    for (let i = 0; i < 20; i++) sim.step();
    sim.close();
  };
  for (let i = 0; i < 100; i++) cycle();
  const before = { heap: wasmHeapBytes(), top: wasmHighWater() };
  const t0 = performance.now();
  for (let i = 0; i < worlds; i++) cycle();
  const after = { heap: wasmHeapBytes(), top: wasmHighWater() };
  console.log(
    `box2d-wasm heap over ${worlds} worlds (20 steps each, ${((performance.now() - t0) / 1000).toFixed(1)} s): ` +
      `heap ${before.heap} → ${after.heap} bytes, allocator high-water ${before.top} → ${after.top}`,
  );
};
