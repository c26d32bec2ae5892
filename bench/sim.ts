/**
 * Physics speed per level: steps/s, ms per full rollout (1000 and 2000 steps, never stopped early), and ms per
 * snapshot and restore at step 500 (planck); then planck and box2d-wasm side by side (sim-engines.ts); then the
 * whole-process time of `hexa levels check-scenes` on the 2,400 fixtures per engine (check-scenes.ts).
 * Run: npm run bench:sim [-- --seeds 3 --scenes 20 --worlds 10000]
 */
import { createInstance } from "../levels/interphyre/instance.ts";
import { listLevels } from "../levels/interphyre/levels/index.ts";
import { captureSnapshot, restore } from "../levels/interphyre/world/snapshot.ts";
import { Simulation, type SimulationSpec } from "../levels/interphyre/world/simulation.ts";
import { readCertified } from "../levels/interphyre/certified-seeds.ts";
import { median, printTable } from "./harness.ts";
import { benchEngines } from "./sim-engines.ts";
import { benchCheckScenes } from "./check-scenes.ts";
import { recordPage } from "./page.ts";

recordPage("sim");

const flag = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SEEDS = flag("seeds", 3);

const specsOf = (level: string): SimulationSpec[] =>
  (readCertified(level)?.seeds ?? []).slice(0, SEEDS).map((s) => {
    const [x, y, radius] = s.solution;
    return { ...createInstance(level, s.seed), action: { x, y, radius } };
  });

const timeRollout = (spec: SimulationSpec, steps: number) => {
  const t0 = performance.now();
  const sim = new Simulation(spec, { recordContacts: false });
  for (let i = 0; i < steps; i++) {
    sim.step();
    void sim.success;
  }
  return { ms: performance.now() - t0, sim };
};

const f = (v: number, d = 1) => v.toFixed(d);

// Warm the JIT on every level's shapes so the first level is not charged for compilation.
for (const level of listLevels()) for (const spec of specsOf(level).slice(0, 1)) timeRollout(spec, 1000);

const rows: string[][] = [];
let totalSteps = 0;
let totalMs = 0;
for (const level of listLevels()) {
  const specs = specsOf(level);
  if (specs.length === 0) continue;
  const r1000 = specs.map((s) => timeRollout(s, 1000).ms);
  const r2000 = specs.map((s) => timeRollout(s, 2000).ms);
  const snap: number[] = [];
  const rest: number[] = [];
  for (const spec of specs) {
    const { sim } = timeRollout(spec, 500);
    let t0 = performance.now();
    const snapshot = captureSnapshot(sim);
    snap.push(performance.now() - t0);
    t0 = performance.now();
    restore(snapshot, { recordContacts: false });
    rest.push(performance.now() - t0);
  }
  const ms = r1000.reduce((a, b) => a + b, 0) + r2000.reduce((a, b) => a + b, 0);
  const steps = specs.length * 3000;
  totalSteps += steps;
  totalMs += ms;
  rows.push([level, f((steps / ms) * 1000, 0), f(median(r1000)), f(median(r2000)), f(median(snap), 2), f(median(rest))]);
}
printTable(["level", "steps/s", "ms/1000", "ms/2000", "snap ms", "rest ms"], [...rows, ["all", f((totalSteps / totalMs) * 1000, 0)]]);
console.log(`(${SEEDS} certified seeds per level, their solutions; restore replays 500 steps)`);
await benchEngines(flag("scenes", 20), flag("worlds", 10_000));
benchCheckScenes();
