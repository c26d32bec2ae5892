/**
 * Certified seeds per level: `hexa levels certify <level> --seeds N` into an empty folder, level by level, then
 * per level the seeds certified, tried and rejected (trivial, corner-trivial, unsolved), the mean rollouts of a
 * certified seed, and whether every seed tried has the status and solution of the shipped file
 * (levels/interphyre/certified/).
 * Run: node --import tsx bench/certify.ts [--levels all|a,b] [--seeds 120] [--workers N]
 *      (npm run build first; --levels catapult --seeds 3 for a quick look; the published run takes hours on 2 cores)
 */
import { availableParallelism } from "node:os";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readCertified, type CertifiedSeeds } from "../levels/interphyre/certified-seeds.ts";
import { listLevels } from "../levels/interphyre/levels/index.ts";
import { intFlag, listFlag, parseFlags } from "./flags.ts";
import { formatTable } from "./harness.ts";
import { hexaCli, requireBuild } from "./hexa-cli.ts";
import { recordPage } from "./page.ts";

recordPage("certify");

const SCRIPT = "bench/certify.ts";
const ALL: readonly string[] = listLevels();
const flags = parseFlags(SCRIPT, { levels: "all", seeds: "120", workers: String(availableParallelism()) });
const LEVELS = flags.levels === "all" ? ALL : listFlag(SCRIPT, "levels", flags.levels, ALL);
const SEEDS = intFlag(SCRIPT, "seeds", flags.seeds);
const WORKERS = intFlag(SCRIPT, "workers", flags.workers);
requireBuild(SCRIPT);

type Outcome = string;
/** Each tried seed's outcome: its solution when certified, else its rejection status. */
const outcomes = (c: CertifiedSeeds): Map<number, Outcome> =>
  new Map([...c.seeds.map((s) => [s.seed, `certified ${s.solution.join(",")}`] as const), ...c.rejected.map((r) => [r.seed, r.status] as const)]);

/** The seeds tried here whose outcome differs from the shipped file's (a seed the shipped run never tried counts too). */
const differences = (made: CertifiedSeeds, shipped: CertifiedSeeds | undefined): number[] => {
  const want = shipped ? outcomes(shipped) : new Map<number, Outcome>();
  return [...outcomes(made)].filter(([seed, o]) => want.get(seed) !== o).map(([seed]) => seed);
};

const row = (c: CertifiedSeeds): string[] => {
  const count = (status: string) => String(c.rejected.filter((r) => r.status === status).length);
  const mean = c.seeds.length ? c.seeds.reduce((s, x) => s + x.rollouts, 0) / c.seeds.length : 0;
  return [
    c.level,
    String(c.seeds.length),
    String(c.seeds.length + c.rejected.length),
    count("trivial"),
    count("corner_trivial"),
    count("unsolved"),
    mean.toFixed(1),
  ];
};

const rollouts = (c: CertifiedSeeds): number => [...c.seeds, ...c.rejected].reduce((s, x) => s + x.rollouts, 0);

const dir = mkdtempSync(join(tmpdir(), "hexa-bench-certify-"));
try {
  const made = LEVELS.map((level) => {
    const r = hexaCli(["levels", "certify", level, "--seeds", String(SEEDS), "--workers", String(WORKERS), "--dir", dir, "--quiet"]);
    const data = readCertified(level, dir);
    if (!data) throw new Error(`hexa levels certify ${level} wrote no ${level}.json`);
    return { data, wallS: r.wallS };
  });
  console.log(`hexa levels certify <level> --seeds ${SEEDS} --workers ${WORKERS}, into an empty folder\n`);
  console.log(
    formatTable(
      ["level", "certified", "tried", "trivial", "corner", "unsolved", "mean rollouts (certified)"],
      made.map((m) => row(m.data)),
    ),
  );
  console.log("");
  for (const { data } of made) {
    const diff = differences(data, readCertified(data.level));
    const tried = data.seeds.length + data.rejected.length;
    console.log(
      diff.length === 0
        ? `${data.level}: all ${tried} seeds tried match the shipped file`
        : `${data.level}: ${diff.length} of ${tried} seeds tried differ from the shipped file (seeds ${diff.slice(0, 10).join(", ")}${diff.length > 10 ? ", …" : ""})`,
    );
  }
  const wall = made.reduce((s, m) => s + m.wallS, 0);
  console.log(`${made.reduce((s, m) => s + rollouts(m.data), 0)} rollouts in ${wall.toFixed(0)} s (whole processes, --workers ${WORKERS})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
