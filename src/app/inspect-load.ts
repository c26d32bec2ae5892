import { closeSync, existsSync, fstatSync, lstatSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, statSync } from "node:fs";
import type { FamilyRegistry } from "./families.ts";
import { basename, join, relative, resolve } from "node:path";
import { z } from "zod";
import { ConfigError } from "../errors.ts";
import { parseRunConfigYaml, RunConfig } from "../loop/run-config.ts";
import { readJsonl } from "../store/jsonl.ts";
import { isEvalFileName, RunDir } from "../store/run-dir.ts";
import { BankLogLine, EpisodeRecord, UsageLine } from "../store/run-records.ts";
import type { FailedCall } from "../report/inspect/usage-view.ts";
import type { RunInput, RunSummaryInput } from "../report/inspect/model.ts";
import { bestOf, CandidateRecord, SearchHeader } from "../search/candidates.ts";
import type { SearchHeaderInput, SearchInput } from "../report/inspect/search-view.ts";
import { parseYamlText } from "../util/yaml-file.ts";

/**
 * Reads what `hexa inspect` shows through the store's readers, never changing a run (`repair: false`): a live
 * run may be writing, so a torn last line is left alone and reported as a notice.
 */

/** True when the file's last byte is not a newline: a line being written, or cut by a crash. */
const tornTail = (path: string): boolean => {
  if (!existsSync(path)) return false;
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    closeSync(fd);
  }
};

const tornNotice = (path: string, what: string) =>
  `${basename(path)}: the last line is incomplete (being written, or cut by a crash); ${what} are shown up to the line before it`;

/** Only what the report needs of an audit line; the messages are skipped by the schema. */
const AuditFailure = z.object({ role: z.string(), ts: z.string(), error: z.string().optional() });

const summaryFrom = (c: RunConfig): RunSummaryInput => ({
  family: c.family,
  levels: c.levels,
  agent: c.agent,
  evolver: c.evolver,
  init: c.init,
  update: c.update,
  models: { actor: c.llm.actor.model, evolver: c.llm.evolver.model },
  T: c.actor.maxTurns,
  x: c.episodesPerRound,
  R: c.rounds,
  M: c.retriever.topSkills,
  N: c.retriever.topMistakes,
  maxSkills: c.bank.maxSkills,
  maxMistakes: c.bank.maxMistakes,
  seedOffset: c.seeds.offset,
});

type Raw = Record<string, unknown>;
const isObject = (v: unknown): v is Raw => v !== null && typeof v === "object" && !Array.isArray(v);
/** The raw values over the defaults, key by key (for a config this hexa no longer accepts as a whole). */
const overlay = (base: unknown, raw: unknown): unknown =>
  isObject(base) && isObject(raw) ? Object.fromEntries(Object.keys(base).map((k) => [k, overlay(base[k], raw[k])])) : raw === undefined ? base : raw;

const summaryOf = (families: FamilyRegistry, dir: RunDir, notices: string[]): RunSummaryInput => {
  const where = join(dir.path, "config.yaml");
  const text = dir.configText();
  try {
    return summaryFrom(parseRunConfigYaml(text, where, families.all()));
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    notices.push(`${e.message}; the summary shows the values the file names, defaults for the rest`);
    let raw: unknown;
    try {
      raw = parseYamlText(text, "config.yaml");
    } catch {
      raw = {};
    }
    const levels = isObject(raw) && Array.isArray(raw.levels) ? raw.levels.map(String) : [];
    return summaryFrom(overlay(RunConfig.parse({ family: families.defaultId(), levels: ["-"] }), isObject(raw) ? { ...raw, levels } : { levels }) as RunConfig);
  }
};

const Problems = z.object({ problems: z.array(z.object({ fatal: z.boolean(), message: z.string() })).default([]) });

/** What the run found wrong with its own result (run-health.ts), as metrics.json records it. */
const problemsOf = (file: string): string[] => {
  if (!existsSync(file)) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return [];
  }
  const parsed = Problems.safeParse(raw);
  return parsed.success ? parsed.data.problems.map((p) => `${p.fatal ? "PROBLEM" : "note"}: ${p.message}`) : [];
};

/** One run directory, as far as it is written; its config read with `families`' slices. */
export const readRunInput = (families: FamilyRegistry, path: string): RunInput => {
  const dir = RunDir.open(path);
  const notices: string[] = [];
  const summary = summaryOf(families, dir, notices);

  const episodesFile = dir.file("episodes");
  const episodes = dir.episodes({ repair: false });
  if (tornTail(episodesFile)) notices.push(tornNotice(episodesFile, "episodes"));
  if (summary.levels.length === 0) summary.levels = [...new Set(episodes.map((e) => e.level))];

  const bankFile = dir.file("bank");
  const bankLog = dir.bankLog({ repair: false });
  if (tornTail(bankFile)) notices.push(tornNotice(bankFile, "bank events"));
  const lines = readJsonl(bankFile, BankLogLine, { repair: false });
  let lastCommit = -1;
  lines.forEach((l, i) => {
    if ("commit" in l) lastCommit = i;
  });
  const pending = lines.length - 1 - lastCommit;
  if (pending > 0)
    notices.push(`bank-events.jsonl: ${pending} event(s) after the last commit line (an update in progress, or cut short by a crash) are not shown`);

  const usageFile = dir.file("usage");
  const usage = readJsonl(usageFile, UsageLine, { repair: false });
  if (tornTail(usageFile)) notices.push(tornNotice(usageFile, "model calls"));

  const failedCalls: FailedCall[] = readJsonl(dir.file("llmLog"), AuditFailure, { repair: false })
    .filter((l) => l.error !== undefined)
    .map((l) => ({ role: l.role, ts: l.ts, error: l.error! }));

  notices.push(...problemsOf(dir.file("metrics")), ...dir.notices({ repair: false }).map((n) => `warning: ${n.message}`));

  const evalDir = join(dir.path, "eval");
  const evals = existsSync(evalDir)
    ? readdirSync(evalDir)
        .filter(isEvalFileName)
        .sort()
        .map((f) => ({ name: f.replace(/\.jsonl$/, ""), episodes: readJsonl(join(evalDir, f), EpisodeRecord, { repair: false }) }))
    : [];

  return {
    id: dir.meta.id,
    path: dir.path,
    createdAt: dir.meta.createdAt,
    summary,
    episodes,
    bankEvents: bankLog.events,
    snapshots: dir.snapshots(),
    usage,
    failedCalls,
    evals,
    notices,
  };
};

const isRun = (path: string) => existsSync(join(path, "run.json"));
/** False for a link to nothing (or to itself) and an entry removed since it was listed: none holds a run. */
const isDirectory = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};
const subdirs = (path: string) =>
  readdirSync(path)
    .filter((f) => !f.startsWith("."))
    .map((f) => join(path, f))
    .filter(isDirectory)
    .sort();

/** A run's configuration without its agent seed and time stamp: runs that differ only in those share a cell. */
export const cellOf = (runId: string): string => runId.replace(/__s\d+__[^_]*$/, "");

export interface InspectTarget {
  kind: "run" | "compare" | "search";
  path: string;
  /** Cells of run directories; a single run is one cell of one run; none for a directory of searches only. */
  cells: { name: string; runs: string[] }[];
  /** Directories at or under `path` that hold a candidates.jsonl (reward searches, drawn as lineage trees). */
  searches: string[];
}

/**
 * A run directory, or a comparison: a directory of runs (grouped into cells by their id without seed and time)
 * or of cell directories each holding runs (grouped by the cell directory's name).
 */
export const findTarget = (dir: string): InspectTarget => {
  const path = resolve(dir);
  if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() && !existsSync(path))
    throw new ConfigError(`${dir}: a link to ${readlinkSync(path)}, which does not exist; give a run directory (runs/<id>) or a comparison directory`);
  if (existsSync(path) && !isDirectory(path))
    throw new ConfigError(
      `${dir}: a file, not a directory; hexa inspect reads what a run wrote: give its run directory (runs/<id>, printed by hexa run) or a comparison directory`,
    );
  if (!isDirectory(path)) throw new ConfigError(`${dir}: no such directory; give a run directory (runs/<id>) or a comparison directory`);
  if (isRun(path)) return { kind: "run", path, cells: [{ name: basename(path), runs: [path] }], searches: findSearchDirs(path) };
  const cells = new Map<string, string[]>();
  for (const child of subdirs(path)) {
    if (isRun(child)) {
      const name = cellOf(basename(child));
      cells.set(name, [...(cells.get(name) ?? []), child]);
    } else {
      const runs = subdirs(child).filter(isRun);
      if (runs.length) cells.set(basename(child), runs);
    }
  }
  const searches = findSearchDirs(path);
  if (cells.size === 0 && searches.length === 0) {
    throw new ConfigError(
      `${dir}: not a hexa run (no run.json) nor a comparison (no run directories inside); give a directory made by hexa run, e.g. runs/<id>, or a search made by hexa search (one with candidates.jsonl)`,
    );
  }
  return { kind: cells.size ? "compare" : "search", path, cells: [...cells].map(([name, runs]) => ({ name, runs })), searches };
};

/** Deep enough for runs/<cell>/<run>/<searches>/<search>; dot directories (trainer jobs and cache) are skipped. */
const SEARCH_DEPTH = 5;

/** Every directory at or under `root` holding a candidates.jsonl: `hexa search` output, or searches a run wrote. */
export const findSearchDirs = (root: string, depth = SEARCH_DEPTH): string[] => {
  const here = existsSync(join(root, "candidates.jsonl")) ? [root] : [];
  if (depth === 0) return here;
  return [...here, ...subfolders(root).flatMap((p) => findSearchDirs(p, depth - 1))];
};

/** The folders directly in `dir` a search may be in, sorted: no link, no dot folder (trainer jobs and cache), no node_modules. */
const subfolders = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith(".") && d.name !== "node_modules")
    .map((d) => join(dir, d.name))
    .sort();

/**
 * Folders strictly under `root` that a family's page claims (a p2p search, a judge folder), not looked into once
 * claimed: a run's report points at them, and `hexa inspect` writes their own pages beside.
 */
export const findClaimedDirs = (root: string, claims: (dir: string) => boolean, depth = SEARCH_DEPTH): string[] => {
  if (depth === 0) return [];
  return subfolders(root).flatMap((p) => (claims(p) ? [p] : findClaimedDirs(p, claims, depth - 1)));
};

/** One search directory: search.json (when there) and candidates.jsonl, read without changing them. */
export const readSearchInput = (path: string, root: string): SearchInput => {
  const notices: string[] = [];
  const file = join(path, "candidates.jsonl");
  let candidates: CandidateRecord[] = [];
  try {
    candidates = readJsonl(file, CandidateRecord, { repair: false });
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    notices.push(`${e.message}; no candidate of this search is shown`);
  }
  if (tornTail(file)) notices.push(tornNotice(file, "candidates"));
  let header: SearchHeaderInput | undefined;
  const headerFile = join(path, "search.json");
  if (existsSync(headerFile)) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(headerFile, "utf8"));
    } catch {
      raw = undefined;
    }
    const parsed = SearchHeader.safeParse(raw);
    if (parsed.success) header = parsed.data;
    else notices.push("search.json: not a search header this hexa reads; task and settings are not shown");
  } else {
    notices.push("no search.json beside candidates.jsonl; task and settings are not shown");
  }
  return { name: relative(root, path) || basename(path), path, ...(header ? { header } : {}), candidates, best: bestOf(candidates)?.index ?? null, notices };
};
