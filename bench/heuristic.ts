/**
 * The heuristic (no LLM) agent on certified seeds of the eight HExA levels: success rate, mean turns (an
 * unsolved episode counts the whole budget) and mean tool time per turn. Levels are split across two child
 * processes, one per core; progress goes to stderr.
 * Run: node --import tsx bench/heuristic.ts [--seeds 20] [--levels catapult,basket_case] [--jobs 2]
 */
import { execa } from "execa";
import { fileURLToPath } from "node:url";
import { runHeuristicEpisode } from "../levels/interphyre/heuristic/agent.ts";
import { createInstance } from "../levels/interphyre/instance.ts";
import { createRng } from "../src/util/rng.ts";
import { readCertified } from "../levels/interphyre/certified-seeds.ts";
import { formatTable } from "./harness.ts";
import { recordPage } from "./page.ts";

recordPage("heuristic");

const HEXA_LEVELS = ["catapult", "pass_the_parcel", "down_to_earth", "two_body_problem", "falling_into_place", "tipping_point", "basket_case", "cliffhanger"];

const flag = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : fallback;
};
const SEEDS = Number(flag("seeds", "20"));
const LEVELS = flag("levels", HEXA_LEVELS.join(",")).split(",");
const JOBS = Number(flag("jobs", "2"));

interface Row {
  level: string;
  episodes: number;
  solved: number;
  turns: number;
  toolMs: number;
  steps: number;
}

const runLevel = (level: string): Row => {
  const seeds = readCertified(level)!.seeds.slice(0, SEEDS);
  const row: Row = { level, episodes: 0, solved: 0, turns: 0, toolMs: 0, steps: 0 };
  for (const { seed } of seeds) {
    const t = runHeuristicEpisode({ instance: createInstance(level, seed), rng: createRng(seed), now: () => performance.now() });
    row.episodes++;
    row.solved += t.success ? 1 : 0;
    row.turns += t.turns;
    row.toolMs += t.steps.reduce((s, x) => s + x.ms, 0);
    row.steps += t.steps.length;
    process.stderr.write(`${level} seed ${seed}: ${t.success ? `solved in ${t.turns}` : "unsolved"} (${(t.wallMs / 1000).toFixed(1)} s)\n`);
  }
  return row;
};

const runChild = async (levels: string[]): Promise<Row[]> => {
  const script = fileURLToPath(import.meta.url);
  const r = await execa(process.execPath, ["--import", "tsx", script, "--worker", "--seeds", String(SEEDS), "--levels", levels.join(",")], {
    stdin: "ignore",
    stderr: "inherit",
    reject: false,
  });
  if (r.exitCode !== 0) throw new Error(`bench worker for ${levels.join(",")} exited with ${r.exitCode ?? r.shortMessage}`);
  return JSON.parse(r.stdout) as Row[];
};

const printTable = (rows: Row[]) => {
  console.log(
    formatTable(
      ["level", "success", "mean turns", "tool ms/turn"],
      rows.map((r) => [r.level, `${r.solved}/${r.episodes}`, (r.turns / r.episodes).toFixed(1), (r.toolMs / r.steps).toFixed(1)]),
    ),
  );
  const all = rows.reduce((s, r) => ({ solved: s.solved + r.solved, episodes: s.episodes + r.episodes }), { solved: 0, episodes: 0 });
  console.log(`overall: ${all.solved}/${all.episodes} solved (${((100 * all.solved) / all.episodes).toFixed(0)}%)`);
};

if (process.argv.includes("--worker")) {
  process.stdout.write(JSON.stringify(LEVELS.map(runLevel)));
} else {
  const groups: string[][] = Array.from({ length: Math.max(1, JOBS) }, () => []);
  LEVELS.forEach((l, i) => groups[i % groups.length]!.push(l));
  const rows = (await Promise.all(groups.filter((g) => g.length > 0).map(runChild))).flat();
  printTable(LEVELS.map((l) => rows.find((r) => r.level === l)!));
}
