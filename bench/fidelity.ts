/**
 * Fidelity against Interphyre: `hexa levels check-scenes --json` on Interphyre's own certified solutions (the
 * fixture files, 100 scenes per level; not shipped), per engine: how many reach the goal in hexa's world.
 * Run: node --import tsx bench/fidelity.ts [--fixtures ../shared/fixtures/interphyre] [--levels all|a,b]
 *      [--engines planck,box2d-wasm] [--steps 1000]   (npm run build first; --levels catapult for a quick look)
 */
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { ENGINES } from "../levels/interphyre/world/engines.ts";
import { failFlag, intFlag, listFlag, parseFlags } from "./flags.ts";
import { formatTable } from "./harness.ts";
import { hexaCli, requireBuild } from "./hexa-cli.ts";
import { ROOT, recordPage } from "./page.ts";

recordPage("fidelity");

const SCRIPT = "bench/fidelity.ts";
const flags = parseFlags(SCRIPT, { fixtures: "../shared/fixtures/interphyre", levels: "all", engines: ENGINES.join(","), steps: "1000" });
const FIXTURES = resolve(ROOT, flags.fixtures);
if (!existsSync(FIXTURES)) failFlag(`${SCRIPT}: --fixtures ${flags.fixtures}: no such folder (Interphyre's scene files, not shipped)`);
const FILES = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => f.replace(/\.json$/, ""));
const LEVELS = flags.levels === "all" ? FILES : listFlag(SCRIPT, "levels", flags.levels, FILES);
const ENGINE_LIST = listFlag(SCRIPT, "engines", flags.engines, ENGINES);
const STEPS = intFlag(SCRIPT, "steps", flags.steps);
requireBuild(SCRIPT);

interface Report {
  total: number;
  reproduced: number;
  levels: Record<string, { total: number; reproduced: number }>;
}

const share = (r: { total: number; reproduced: number }) => `${((100 * r.reproduced) / r.total).toFixed(1)}%`;
const cell = (r: { total: number; reproduced: number } | undefined) => (r ? `${r.reproduced}/${r.total} ${share(r)}` : "–");

const runs = ENGINE_LIST.map((engine) => {
  const files = LEVELS.map((l) => join(FIXTURES, `${l}.json`));
  const r = hexaCli(["levels", "check-scenes", ...files, "--engine", engine, "--steps", String(STEPS), "--json"]);
  return { engine, report: JSON.parse(r.stdout) as Report, wallS: r.wallS };
});

const levels = [...new Set(runs.flatMap((r) => Object.keys(r.report.levels)))].sort();
console.log(`Interphyre's certified solutions placed in hexa's world, ${STEPS} steps per rollout; reproduced per engine\n`);
console.log(
  formatTable(
    ["level", ...ENGINE_LIST],
    [...levels.map((l) => [l, ...runs.map((r) => cell(r.report.levels[l]))]), ["total", ...runs.map((r) => cell(r.report))]],
  ),
);
console.log("");
for (const r of runs)
  console.log(`${r.engine}: ${r.report.reproduced}/${r.report.total} reproduced (${share(r.report)}) in ${r.wallS.toFixed(1)} s (whole process)`);
