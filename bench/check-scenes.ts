/**
 * The whole-process wall time of `hexa levels check-scenes` on Interphyre's 2,400 fixture scenes, per engine,
 * with one physics worker and with the default (one per core): start-up, parsing and the rollouts, as a user
 * waits for them. Run by bench/sim.ts.
 */
import { execaSync } from "execa";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readdirSync } from "node:fs";
import { FIXTURES_DIR, fixturesPresent } from "../test/support/fixtures.ts";
import { ENGINES } from "../levels/interphyre/world/engines.ts";
import { printTable } from "./harness.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

export const benchCheckScenes = (): void => {
  if (!fixturesPresent) {
    console.log(`\n(check-scenes: ${FIXTURES_DIR} is absent; skipped)`);
    return;
  }
  const files = readdirSync(FIXTURES_DIR)
    .filter((f) => f.endsWith(".json"))
    .map((f) => join(FIXTURES_DIR, f));
  const cores = availableParallelism();
  const rows: string[][] = [];
  for (const engine of ENGINES) {
    for (const workers of [...new Set([1, cores])]) {
      const t0 = performance.now();
      const out = execaSync(process.execPath, ["bin/hexa.js", "levels", "check-scenes", ...files, "--engine", engine, "--json"], {
        cwd: ROOT,
        env: { HEXA_PHYSICS_WORKERS: String(workers) },
        reject: false,
      });
      const s = (performance.now() - t0) / 1000;
      if (out.exitCode !== 0) throw new Error(`check-scenes --engine ${engine}: exit ${out.exitCode ?? out.shortMessage}\n${out.stderr}`);
      const r = JSON.parse(out.stdout) as { total: number; reproduced: number };
      rows.push([engine, String(workers), s.toFixed(1), `${r.reproduced}/${r.total}`]);
    }
  }
  console.log("");
  printTable(["hexa levels check-scenes (whole process)", "workers", "wall s", "reproduced"], rows);
  console.log(`(${files.length} fixture files, 1000 steps per rollout; ${cores} cores; wall time includes whatever else the machine runs)`);
};
