import { existsSync, readdirSync, readFileSync } from "node:fs";
import type { AppContext } from "../app/context.ts";
import { basename, join } from "node:path";
import { addCounts, CannotVerify, type Divergence, reportOf, type VerifyReport, zeroCounts } from "../verify/outcome.ts";
import { verifyRun, type VerifyOptions } from "./verify-run.ts";

interface ResultsTable {
  cells: Array<{ id: string; runs: Array<{ run: number; dir: string }>; levels: Array<{ level: string; stream: { perRun: number[] } }> }>;
}

interface Episode {
  phase: string;
  level: string;
  trajectory: { success: boolean };
}

const readTable = (path: string): ResultsTable => {
  try {
    const t = JSON.parse(readFileSync(path, "utf8")) as ResultsTable;
    if (!Array.isArray(t.cells)) throw new Error("no cells");
    return t;
  } catch (e) {
    throw new CannotVerify(`${path}: not a results table of hexa compare (${(e as Error).message})`);
  }
};

/** A run's stream success rate on one level, from its (replayed and verified) episodes.jsonl. */
const streamRate = (runDir: string, level: string): number => {
  const path = join(runDir, "episodes.jsonl");
  const eps = (
    existsSync(path)
      ? readFileSync(path, "utf8")
          .split("\n")
          .filter((l) => l.trim())
      : []
  )
    .map((l) => JSON.parse(l) as Episode)
    .filter((e) => e.phase === "stream" && e.level === level);
  return eps.length ? eps.filter((e) => e.trajectory.success).length / eps.length : Number.NaN;
};

/** results.json's per-run stream success rates against the runs' verified records (held-out rates come from `hexa eval`, which a replay does not redo). */
const checkTable = (dir: string): Divergence | undefined => {
  const path = join(dir, "results.json");
  if (!existsSync(path)) return undefined;
  for (const cell of readTable(path).cells) {
    for (const [i, r] of cell.runs.entries()) {
      // The run as this directory holds it, never a path results.json names (docs/security.md).
      const runDir = join(dir, "runs", basename(r.dir));
      for (const l of cell.levels) {
        const recorded = l.stream.perRun[i];
        const again = streamRate(runDir, l.level);
        if (recorded === undefined || (Number.isNaN(again) ? recorded !== null : Math.abs(recorded - again) > 1e-12))
          return {
            what: `results table (results.json), cell ${cell.id} run ${r.run}`,
            field: `${l.level} stream success rate`,
            recorded: String(recorded),
            replayed: String(again),
          };
      }
    }
  }
  return undefined;
};

/**
 * `hexa verify` on a `hexa compare` directory (docs/guides/verify.md): every run under DIR/runs replayed and
 * compared in turn, then the results table's per-run success rates against the verified records.
 */
export const verifyCompare = async (ctx: AppContext, dir: string, options: VerifyOptions): Promise<VerifyReport> => {
  const runsDir = join(dir, "runs");
  const runs = existsSync(runsDir)
    ? readdirSync(runsDir)
        .filter((n) => existsSync(join(runsDir, n, "run.json")))
        .sort()
    : [];
  if (!runs.length) throw new CannotVerify(`${runsDir}: no run directories (a compare directory keeps its runs there)`);
  let counts = zeroCounts();
  for (const [i, name] of runs.entries()) {
    options.log?.(`run ${i + 1}/${runs.length}: ${name}`);
    const r = await verifyRun(ctx, join(runsDir, name), options);
    counts = addCounts(counts, r.counts);
    if (r.status !== "identical") return { ...r, dir, counts, message: `${name}: ${r.message}` };
  }
  const divergence = checkTable(dir);
  return reportOf(dir, counts, divergence);
};
