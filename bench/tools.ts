/**
 * Latency of each actor tool on catapult and pass_the_parcel: p50 / p95 over certified seeds, with the
 * seed's certified solution as the placement (a full, successful rollout) and a failing one. The episode
 * horizon is the HExA harness's 2000 steps. Run: npx tsx bench/tools.ts [--seeds 10]
 */
import { createInstance } from "../levels/interphyre/instance.ts";
import { readCertified } from "../src/store/certified-seeds.ts";
import { callTool, ToolSession } from "../tools/define-tool.ts";
import { tools } from "../tools/index.ts";

const seedsArg = process.argv.indexOf("--seeds");
const SEEDS = seedsArg > 0 ? Number(process.argv[seedsArg + 1]) : 10;
const all = Object.values(tools);

type Args = (sol: { x: number; y: number; radius: number }, s: ToolSession) => unknown;
/** Arguments per tool; the placement is the seed's certified solution unless the row says otherwise. */
const cases: [string, string, Args][] = [
  ["get_level_state", "", () => ({})],
  ["describe_scene_geometry", "", () => ({})],
  ["check_placement", "", (p) => p],
  ["simulate_action", "solution", (p) => p],
  ["simulate_action", "miss", (p) => ({ x: -p.x * 0.9, y: Math.min(p.y + 0.3, 4.4), radius: p.radius })],
  ["simulate_partial", "step 300", (p) => ({ ...p, stop_step: 300 })],
  ["get_contact_log", "", () => ({})],
  ["trace_objects", "", (p, s) => ({ ...p, objects: [s.instance.goal[0]], steps: 600 })],
  ["predict_first_contact", "", (p) => p],
  ["snapshot", "step 200", (p) => ({ ...p, at_step: 200 })],
  ["intervene", "300 steps", (_p, s) => ({ snapshot_id: [...s.snapshots.keys()].at(-1), interventions: [], steps: 300 })],
  ["finish", "", (p) => p],
];

const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

console.log(`${"level".padEnd(16)}${"tool".padEnd(24)}${"case".padEnd(10)}${"p50 ms".padStart(8)}${"p95 ms".padStart(8)}`);
for (const level of ["catapult", "pass_the_parcel"]) {
  const certified = readCertified(level)!.seeds;
  // Warm the JIT on seeds outside the measured ones.
  for (const entry of certified.slice(-3)) {
    const session = new ToolSession(createInstance(level, entry.seed), 2000);
    const [x, y, radius] = entry.solution;
    for (const [name, , args] of cases) if (name in tools) callTool(all, session, name, args({ x, y, radius }, session));
  }
  const seeds = certified.slice(0, SEEDS);
  const times = new Map<string, number[]>();
  for (const entry of seeds) {
    const session = new ToolSession(createInstance(level, entry.seed), 2000);
    const [x, y, radius] = entry.solution;
    for (const [name, label, args] of cases) {
      if (!(name in tools)) continue;
      const t0 = performance.now();
      callTool(all, session, name, args({ x, y, radius }, session));
      const key = `${name}\t${label}`;
      times.set(key, [...(times.get(key) ?? []), performance.now() - t0]);
    }
  }
  for (const [key, xs] of times) {
    const [name, label] = key.split("\t");
    console.log(`${level.padEnd(16)}${name!.padEnd(24)}${label!.padEnd(10)}${pct(xs, 0.5).toFixed(1).padStart(8)}${pct(xs, 0.95).toFixed(1).padStart(8)}`);
  }
}
