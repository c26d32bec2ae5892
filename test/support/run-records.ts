import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** A record with its clock readings removed (tool and wall times, timestamps): what must not depend on the pool. */
export const timeless = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(timeless);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => !/(^ms$|Ms$|^at$|At$|^time)/.test(k))
      .map(([k, x]) => [k, timeless(x)]),
  );
};

/**
 * A run directory's records without their clock readings, keyed by file: episodes.jsonl (by episode id, so the
 * order the file keeps does not matter), bank-events.jsonl, metrics.json (less the run id, which names its start
 * time) and every bank snapshot. Two runs that played the same episodes give equal records, whatever their pool.
 */
export const runRecordsWithoutClocks = (runDir: string): Record<string, unknown> => {
  const lines = (f: string) =>
    readFileSync(join(runDir, f), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => timeless(JSON.parse(l)));
  const { run: _id, ...metrics } = JSON.parse(readFileSync(join(runDir, "metrics.json"), "utf8")) as Record<string, unknown>;
  const records: Record<string, unknown> = {
    "episodes.jsonl": (lines("episodes.jsonl") as { id: string }[]).sort((a, b) => a.id.localeCompare(b.id)),
    "bank-events.jsonl": lines("bank-events.jsonl"),
    "metrics.json": timeless(metrics),
  };
  for (const f of readdirSync(join(runDir, "banks")).sort()) records[`banks/${f}`] = timeless(JSON.parse(readFileSync(join(runDir, "banks", f), "utf8")));
  return records;
};
