/**
 * Latency of each actor tool on catapult and pass_the_parcel: p50 / p95 over certified seeds, with the
 * seed's certified solution as the placement (a full, successful rollout) and a failing one. The episode
 * horizon is the HExA harness's 2000 steps. Then simulate_action by process state (docs/spec/interphyre.md §5.2): each row
 * in a fresh child process, through the physics worker and in-process, bare and after loading the LLM layer
 * (a role model created) and parsing a string-coordinate `{"x":"1","y":"2"}`.
 * Run: npx tsx bench/tools.ts [--seeds 10] [--rounds 1] [--rows-only]
 */
import { execaSync } from "execa";
import { createInstance } from "../levels/interphyre/instance.ts";
import { closePhysicsHost } from "../levels/interphyre/physics-host.ts";
import { openInterphyreEnv } from "../levels/interphyre/task-env.ts";
import { readCertified } from "../levels/interphyre/certified-seeds.ts";
import { callInterphyreTool, InterphyreSession } from "../levels/interphyre/tools/interphyre-tool.ts";
import { tools } from "../levels/interphyre/tools/index.ts";
import { percentile as pct, printTable } from "./harness.ts";
import { recordPage } from "./page.ts";

recordPage("tools");

const seedsArg = process.argv.indexOf("--seeds");
const SEEDS = seedsArg > 0 ? Number(process.argv[seedsArg + 1]) : 10;
const roundsArg = process.argv.indexOf("--rounds");
const ROUNDS = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 1;
const rowArg = process.argv.indexOf("--row");
const LEVELS = ["catapult", "pass_the_parcel"];
const all = Object.values(tools);

type Args = (sol: { x: number; y: number; radius: number }, s: InterphyreSession) => unknown;
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

const toolTable = () => {
  const rows: string[][] = [];
  for (const level of LEVELS) {
    const certified = readCertified(level)!.seeds;
    // Warm the JIT on seeds outside the measured ones.
    for (const entry of certified.slice(-3)) {
      const session = new InterphyreSession(createInstance(level, entry.seed), 2000);
      const [x, y, radius] = entry.solution;
      for (const [name, , args] of cases) if (name in tools) callInterphyreTool(all, session, name, args({ x, y, radius }, session));
    }
    const seeds = certified.slice(0, SEEDS);
    const times = new Map<string, number[]>();
    for (const entry of seeds) {
      const session = new InterphyreSession(createInstance(level, entry.seed), 2000);
      const [x, y, radius] = entry.solution;
      for (const [name, label, args] of cases) {
        if (!(name in tools)) continue;
        const t0 = performance.now();
        callInterphyreTool(all, session, name, args({ x, y, radius }, session));
        const key = `${name}\t${label}`;
        times.set(key, [...(times.get(key) ?? []), performance.now() - t0]);
      }
    }
    for (const [key, xs] of times) {
      const [name, label] = key.split("\t");
      rows.push([level, name!, label!, pct(xs, 0.5).toFixed(1), pct(xs, 0.95).toFixed(1)]);
    }
  }
  printTable(["level", "tool", "case", "p50 ms", "p95 ms"], rows, { align: "lllrr" });
};

/** How a row's child process is set up before measuring, and where its tools run. */
const ROWS = {
  "worker, bare process": { poison: false, physics: "worker" },
  "worker, LLM layer + string-coordinate JSON": { poison: true, physics: "worker" },
  "in-process, bare process": { poison: false, physics: "in-process" },
  "in-process, LLM layer + string-coordinate JSON": { poison: true, physics: "in-process" },
} as const;
type RowName = keyof typeof ROWS;

/** What slows planck (docs/spec/interphyre.md §5.2) for the rest of a process: the langchain role model, or one parsed `{"x": "1", …}`. */
const poison = async () => {
  const { createRoleModel } = await import("../src/llm/role-model.ts");
  const { LlmConfig } = await import("../src/llm/config.ts");
  createRoleModel("actor", LlmConfig.parse({ actor: { baseURL: "http://127.0.0.1:9/v1", apiKey: "sk-bench" } }), { env: {} });
  JSON.parse('{"x":"1","y":"2"}');
};

/** One row, in this (child) process: simulate_action p50 over the seeds' solutions, and a trivial call's round trip. */
const measureRow = async (name: RowName) => {
  const row = ROWS[name];
  if (row.poison) await poison();
  const physics = row.physics === "worker" ? {} : ({ physics: "in-process" } as const);
  const open = (level: string, seed: number) => openInterphyreEnv({ level, seed, horizon: 2000, toolSet: "extended", maxTurns: 25 }, physics);
  const sim: number[] = [];
  const trivial: number[] = [];
  /** CPU time of the whole process (every thread): steadier than wall time on a shared machine. */
  const cpu: number[] = [];
  const trivialCpu: number[] = [];
  for (const level of LEVELS) {
    const certified = readCertified(level)!.seeds;
    for (const [i, entry] of [...certified.slice(-3), ...certified.slice(0, SEEDS)].entries()) {
      const env = await open(level, entry.seed);
      const [x, y, radius] = entry.solution;
      // A model's string coordinates: rejected by the schema; in-process they also reach the zod parse only.
      if (row.poison) await env.call("simulate_action", { x: String(x), y: String(y), radius });
      for (let rep = 0; rep < 3; rep++) {
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        await env.call("get_level_state", {});
        const c01 = process.cpuUsage(c0);
        const t1 = performance.now();
        const c1 = process.cpuUsage();
        await env.call("simulate_action", { x, y, radius });
        const c2 = process.cpuUsage(c1);
        // The first three seeds warm the JIT (and start the worker).
        if (i >= 3) {
          sim.push(performance.now() - t1);
          cpu.push((c2.user + c2.system) / 1000);
          trivial.push(t1 - t0);
          trivialCpu.push((c01.user + c01.system) / 1000);
        }
      }
      await env.close();
    }
  }
  await closePhysicsHost();
  console.log(JSON.stringify({ sim: pct(sim, 0.5), cpu: pct(cpu, 0.5), trivial: pct(trivial, 0.5), trivialCpu: pct(trivialCpu, 0.5) }));
};

const processRows = () => {
  console.log(`\nsimulate_action (certified solution) p50 by process state, ${LEVELS.length * SEEDS * 3} calls per row, each row a fresh process:`);
  console.log(`${"row".padEnd(50)}${"wall p50 ms".padStart(12)}${"cpu p50 ms".padStart(12)}${"get_level_state wall / cpu p50 ms".padStart(36)}`);
  const self = new URL(import.meta.url).pathname;
  const got = new Map<RowName, { sim: number; cpu: number }[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of Object.keys(ROWS) as RowName[]) {
      const out = execaSync(process.execPath, [...process.execArgv, self, "--row", name, "--seeds", String(SEEDS)], { stderr: "inherit" }).stdout;
      const r = JSON.parse(out.trim().split("\n").at(-1)!) as { sim: number; cpu: number; trivial: number; trivialCpu: number };
      const { sim, cpu } = r;
      got.set(name, [...(got.get(name) ?? []), { sim, cpu }]);
      console.log(
        `${name.padEnd(50)}${sim.toFixed(1).padStart(12)}${cpu.toFixed(1).padStart(12)}${`${r.trivial.toFixed(2)} / ${r.trivialCpu.toFixed(2)}`.padStart(36)}`,
      );
    }
  }
  const med = (n: RowName, k: "sim" | "cpu") =>
    pct(
      got.get(n)!.map((r) => r[k]),
      0.5,
    );
  const ratio = (a: RowName, b: RowName) => `${(med(a, "sim") / med(b, "sim")).toFixed(2)}× wall, ${(med(a, "cpu") / med(b, "cpu")).toFixed(2)}× cpu`;
  console.log(`worker, LLM-loaded / worker, bare: ${ratio("worker, LLM layer + string-coordinate JSON", "worker, bare process")} (target ≤ 1.1×)`);
  console.log(
    `in-process, LLM-loaded / worker, bare: ${ratio("in-process, LLM layer + string-coordinate JSON", "worker, bare process")} (the slowdown the worker removes)`,
  );
  console.log(`worker, bare / in-process, bare: ${ratio("worker, bare process", "in-process, bare process")} (the worker's own cost)`);
};

if (rowArg > 0) await measureRow(process.argv[rowArg + 1] as RowName);
else {
  if (!process.argv.includes("--rows-only")) toolTable();
  processRows();
}
