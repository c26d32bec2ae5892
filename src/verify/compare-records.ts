import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { CannotVerify, type Divergence } from "./outcome.ts";
import { SEARCH_RECORD_FILE } from "../search/search-record.ts";
import { firstDifference } from "./compare-values.ts";

/**
 * Files of a run directory that a replay does not reproduce: the run's identity and history (run.json,
 * writers, notices; a search directory's search-config.json, which the replay runs from), the exchanges (checked
 * request by request instead), usage lines (their order follows concurrency; metrics.json holds their totals), the
 * report, held-out evaluations (`hexa eval`, another command), what `hexa bundle` and `hexa verify` add, and held/:
 * finished episodes a killed run had not written yet, which are not records until a resume writes them
 * (docs/ARCHITECTURE.md §6).
 */
const NOT_REPLAYED = new Set([
  "run.json",
  "config.yaml",
  "writers.jsonl",
  "notices.jsonl",
  "llm-log.jsonl",
  "usage.jsonl",
  "served-models.json",
  "stopped.json",
  "report.html",
  "verification.json",
  "MANIFEST.json",
  "bundle",
  "bundle.json",
  "eval",
  "held",
  SEARCH_RECORD_FILE,
]);

type Json = Record<string, unknown>;

const jsonLines = (path: string): Json[] => {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l, i) => {
      try {
        return JSON.parse(l) as Json;
      } catch (e) {
        throw new CannotVerify(`${path}:${i + 1}: not valid JSON (${(e as Error).message})`);
      }
    });
};

/** "episode <id> turn <n>" for a difference inside a trajectory's steps, else "episode <id>". */
const episodeWhat = (rec: Json, field: string): string => {
  const step = /^trajectory\.steps\[(\d+)\]/.exec(field);
  const steps = (rec.trajectory as { steps?: Array<{ turn?: unknown }> } | undefined)?.steps;
  const turn = step ? (steps?.[Number(step[1])]?.turn ?? Number(step[1]) + 1) : undefined;
  return `episode ${String(rec.id)}${turn === undefined ? "" : ` turn ${String(turn)}`}`;
};

/** Two sides' records matched by a key (concurrency orders a file, not the work), each pair compared field by field. */
const compareByKey = (
  recorded: readonly Json[],
  replayed: readonly Json[],
  keyOf: (r: Json) => string,
  o: { thing: string; whatOf: (rec: Json, field: string) => string; made: string; notMade: string },
): { divergence?: Divergence; count: number } => {
  const again = new Map(replayed.map((e) => [keyOf(e), e] as const));
  let count = 0;
  const whole = (rec: Json, recordedMade: boolean): Divergence => ({
    what: o.whatOf(rec, ""),
    field: `(the ${o.thing})`,
    recorded: recordedMade ? o.made : o.notMade,
    replayed: recordedMade ? o.notMade : o.made,
  });
  for (const rec of recorded) {
    const other = again.get(keyOf(rec));
    if (!other) return { count, divergence: whole(rec, true) };
    const d = firstDifference(rec, other);
    if (d) return { count, divergence: { what: o.whatOf(rec, d.field), ...d } };
    again.delete(keyOf(rec));
    count++;
  }
  const extra = [...again.values()][0];
  return extra === undefined ? { count } : { count, divergence: whole(extra, false) };
};

/** Every recorded episode against the replayed one of the same id. */
export const compareEpisodes = (recordDir: string, replayDir: string): { divergence?: Divergence; count: number } =>
  compareByKey(jsonLines(join(recordDir, "episodes.jsonl")), jsonLines(join(replayDir, "episodes.jsonl")), (e) => String(e.id), {
    thing: "episode",
    whatOf: episodeWhat,
    made: "played",
    notMade: "never played",
  });

/** A search's candidates (candidates.jsonl) by index: its evaluations run at once, so lines are written as each ends. */
export const compareCandidates = (recordDir: string, replayDir: string, file: string): { divergence?: Divergence; count: number } =>
  compareByKey(jsonLines(join(recordDir, file)), jsonLines(join(replayDir, file)), (c) => String(c.index), {
    thing: "candidate",
    whatOf: (c) => `search candidate #${String(c.index)} (${file})`,
    made: "evaluated",
    notMade: "never evaluated",
  });

const eventWhat = (line: Json, n: number): string => {
  const e = line.event as { type?: unknown; round?: unknown; entry?: { id?: unknown }; id?: unknown } | undefined;
  const commit = line.commit as { round?: unknown } | undefined;
  const about = e ? `${String(e.type)} ${String(e.entry?.id ?? e.id ?? "")}`.trim() : `commit of round ${String(commit?.round)}`;
  return `bank event ${n} (${String(line.level)} round ${String(e?.round ?? commit?.round)} ${about})`;
};

/** The bank log line by line: each level's updates are committed in round order, so the file's order is the run's. */
export const compareBankEvents = (recordDir: string, replayDir: string): { divergence?: Divergence; count: number } => {
  const recorded = jsonLines(join(recordDir, "bank-events.jsonl"));
  const replayed = jsonLines(join(replayDir, "bank-events.jsonl"));
  const again = new Map<string, Json[]>();
  for (const l of replayed) again.set(String(l.level), [...(again.get(String(l.level)) ?? []), l]);
  const seen = new Map<string, number>();
  let count = 0;
  for (const [n, line] of recorded.entries()) {
    const level = String(line.level);
    const i = seen.get(level) ?? 0;
    seen.set(level, i + 1);
    const d = firstDifference(line, again.get(level)?.[i]);
    if (d) return { count, divergence: { what: eventWhat(line, n + 1), ...d } };
    if (line.event) count++;
  }
  const extra = [...again].find(([level, lines]) => lines.length > (seen.get(level) ?? 0));
  if (extra) {
    const line = extra[1][seen.get(extra[0]) ?? 0]!;
    return {
      count,
      divergence: {
        what: `bank event after the last recorded one of ${extra[0]}`,
        field: "(the event)",
        recorded: "(none)",
        replayed: JSON.stringify(line).slice(0, 300),
      },
    };
  }
  return { count };
};

/** Every other record file below a run directory (metrics, bank snapshots, final scores, a family's own records), relative paths. */
const recordFiles = (root: string, dir = root): string[] =>
  readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (dir === root && (NOT_REPLAYED.has(name) || name === "episodes.jsonl" || name === "bank-events.jsonl")) return [];
      if (statSync(path).isDirectory()) return recordFiles(root, path);
      return /\.jsonl?$/.test(name) && !name.includes(".tmp") ? [relative(root, path)] : [];
    });

const whatOfFile = (file: string): string => (file === "metrics.json" ? "metric (metrics.json)" : /final-scores/.test(file) ? `final score (${file})` : file);

/** What a difference is in: a final score named by its level, the field inside that score; any other file by its name. */
const finalScoreWhere = (file: string, recorded: unknown, field: string): { what: string; field: string } => {
  const at = /^levels\[(\d+)\]\.?(.*)$/.exec(field);
  const level = at ? (recorded as { levels?: Array<{ level?: unknown }> }).levels?.[Number(at[1])]?.level : undefined;
  if (!at || !/final-scores/.test(file) || level === undefined) return { what: whatOfFile(file), field };
  return { what: `final score of ${String(level)} (${file})`, field: at[2] || "(the score)" };
};

/** metrics.json (its run id aside), bank snapshots, final scores and any other JSON record, field by field. */
export const compareOtherRecords = (recordDir: string, replayDir: string): Divergence | undefined => {
  for (const file of recordFiles(recordDir)) {
    const other = join(replayDir, file);
    if (!existsSync(other)) return { what: whatOfFile(file), field: "(the file)", recorded: "written", replayed: "not written" };
    if (file.endsWith("candidates.jsonl")) {
      const candidates = compareCandidates(recordDir, replayDir, file);
      if (candidates.divergence) return candidates.divergence;
      continue;
    }
    const read = (dir: string) => (file.endsWith(".jsonl") ? jsonLines(join(dir, file)) : (JSON.parse(readFileSync(join(dir, file), "utf8")) as unknown));
    const [a, b] = [read(recordDir), read(replayDir)];
    if (file === "metrics.json") for (const m of [a, b] as Json[]) delete m.run;
    const d = firstDifference(a, b);
    if (d) return { ...d, ...finalScoreWhere(file, a, d.field) };
  }
  return undefined;
};
