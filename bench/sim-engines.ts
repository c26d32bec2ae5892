/**
 * Engines side by side: steps/s of planck and box2d-wasm on Interphyre's fixture scenes of catapult and
 * pass_the_parcel (their certified solutions, 1000 steps each, never stopped early, sleeping and continuous
 * collision on), beside native Box2D 2.4.1 on the same scenes (bench/native/run.sh, measured here when g++ and
 * libbox2d-dev are installed, else its last measurement); then the wasm heap over many create/step/destroy cycles.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { execaSync } from "execa";
import { FIXTURES_DIR } from "../test/support/fixtures.ts";
import { parseSceneFile } from "../levels/interphyre/scene-check.ts";
import { getLevel } from "../levels/interphyre/levels/index.ts";
import { RADIUS_MAX, RADIUS_MIN } from "../levels/interphyre/world/constants.ts";
import { ENGINES, loadEngine } from "../levels/interphyre/world/engines.ts";
import type { CreateEngine } from "../levels/interphyre/world/engine.ts";
import { parseScene } from "../levels/interphyre/world/scene.ts";
import { Simulation, type SimulationSpec } from "../levels/interphyre/world/simulation.ts";

const LEVELS = ["catapult", "pass_the_parcel"] as const;
const PASSES = 5;
/** bench/native/run.sh's last measurement on this machine (load about 1.5), 20 scenes per level. */
const LAST_NATIVE = { scenes: 20, catapult: 260_702, pass_the_parcel: 109_184 };

/** Native Box2D on the same scenes, measured now if the toolchain is here. */
const nativeRow = (scenes: number): { label: string; perLevel: Record<(typeof LEVELS)[number], number> } => {
  try {
    const lines = execaSync("bash", ["bench/native/run.sh", String(scenes)]).stdout.split("\n");
    const perLevel = Object.fromEntries(LEVELS.map((l) => [l, Number(lines.find((x) => x.startsWith(`${l} `))!.split(" ")[1])]));
    return { label: "native Box2D 2.4.1 (measured now)", perLevel: perLevel as Record<(typeof LEVELS)[number], number> };
  } catch (e) {
    console.error(`native Box2D not measured (${(e as Error).message.split("\n")[0]}); its last measurement is shown`);
    const note = scenes === LAST_NATIVE.scenes ? "" : `, ${LAST_NATIVE.scenes} scenes`;
    return { label: `native Box2D 2.4.1 (last measurement${note})`, perLevel: LAST_NATIVE };
  }
};

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
  const native = nativeRow(scenes);
  console.log(`${native.label.padEnd(44)}${LEVELS.map((l) => k(native.perLevel[l])).join("")}`);
  for (const name of ENGINES) {
    const engine = await loadEngine(name);
    // The best of PASSES passes: the first ones pay the JIT's and wasm's tier-up compiles on background threads.
    const best = (l: (typeof LEVELS)[number]) => Math.max(...Array.from({ length: PASSES }, () => stepsPerSecond(specs[l]!, engine)));
    const rates = LEVELS.map((l) => best(l));
    console.log(`${name.padEnd(44)}${rates.map((v, i) => `${k(v).trim()} (${(v / native.perLevel[LEVELS[i]!]).toFixed(2)}×)`.padStart(18)).join("")}`);
  }
  console.log(
    `(steps per CPU second through Simulation, contacts and success rule included; best of ${PASSES} passes over ${scenes} fixture scenes per level, their solutions, 1000 steps each)`,
  );

  const { wasmHeapBytes, wasmHighWater } = await import("../levels/interphyre/world/box2d-wasm.ts");
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
