/**
 * `hexa compare` on the quickstart, fully offline: a 2 × 2 grid (init off2on/online × retriever.topSkills 0/6),
 * heuristic agent and evolver, runs on paired seeds, held-out seeds for each run's frozen final bank. Prints
 * compare's own tables and the whole command's wall time.
 * Run: node --import tsx bench/compare-quickstart.ts [--rounds 2] [--runs 3] [--heldout 3] [--parallel 2]
 *      (npm run build first; --rounds 1 --runs 1 --heldout 1 for a quick look)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { intFlag, parseFlags } from "./flags.ts";
import { hexaCli, requireBuild } from "./hexa-cli.ts";
import { recordPage } from "./page.ts";

recordPage("compare-quickstart");

const SCRIPT = "bench/compare-quickstart.ts";
const flags = parseFlags(SCRIPT, { rounds: "2", runs: "3", heldout: "3", parallel: "2" });
const ROUNDS = intFlag(SCRIPT, "rounds", flags.rounds);
const RUNS = intFlag(SCRIPT, "runs", flags.runs);
const HELDOUT = intFlag(SCRIPT, "heldout", flags.heldout, 0);
const PARALLEL = intFlag(SCRIPT, "parallel", flags.parallel);
requireBuild(SCRIPT);

const GRID = ["init=off2on,online", "retriever.topSkills=0,6", `rounds=${ROUNDS}`];
const CELLS = 4;

const dir = mkdtempSync(join(tmpdir(), "hexa-bench-compare-"));
try {
  const args = ["compare", "configs/quickstart.yaml", ...GRID.flatMap((g) => ["--grid", g]), "--runs", String(RUNS), "--heldout", String(HELDOUT)];
  const r = hexaCli([...args, "--parallel", String(PARALLEL), "--out", join(dir, "compare")]);
  // compare's own tables, without the lines naming this run's temporary results folder
  const tables = r.stdout
    .split("\n")
    .filter((l) => !l.startsWith("results: ") && !l.startsWith("plot: "))
    .join("\n")
    .trim();
  console.log(`hexa ${args.join(" ")} --parallel ${PARALLEL}\n`);
  console.log(tables);
  console.log(`\n${CELLS * RUNS} runs (${CELLS} cells × ${RUNS}), ${PARALLEL} at once: ${r.wallS.toFixed(0)} s for the whole command`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
