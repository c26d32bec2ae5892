import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { ConfigError } from "../errors.ts";
import type { Bank, BankEvent } from "./bank.ts";
import { HELD_DIR, HeldEpisodes } from "./held-episodes.ts";
import { appendJsonl, readJsonl, writeAtomic, writeJsonAtomic } from "./jsonl.ts";
import { readConfigText } from "../util/yaml-file.ts";
import { ATOMIC_TEMP } from "../util/write-atomic.ts";
import { takePidLock } from "./pid-lock.ts";
import { BankLogLine, BankSnapshot, EpisodeRecord, NoticeLine, RUN_MARK, RunMeta, StopRecord, UsageLine, WriterLine, type Phase } from "./run-records.ts";
import { hexaCommand } from "../util/hexa-command.ts";

const FILES = {
  meta: "run.json",
  config: "config.yaml",
  episodes: "episodes.jsonl",
  bank: "bank-events.jsonl",
  usage: "usage.jsonl",
  llmLog: "llm-log.jsonl",
  metrics: "metrics.json",
  writers: "writers.jsonl",
  notices: "notices.jsonl",
  stopped: "stopped.json",
  lock: "run.lock",
} as const;

/** An evaluation's file name under eval/: its start time (see RunDir.evalFile). */
export const isEvalFileName = (name: string): boolean => /^\d{4}-\d{2}-\d{2}T.*\.jsonl$/.test(name);

/** Most file systems cap a name at 255 bytes. */
const MAX_NAME_BYTES = 255;

/**
 * Makes `path` one level at a time from its nearest existing ancestor. A recursive mkdir loops forever under
 * /proc; one level at a time fails at once there, and a file in the way is named.
 */
const makeDirs = (path: string): void => {
  const missing: string[] = [];
  let p = path;
  while (!existsSync(p)) {
    missing.unshift(p);
    const up = dirname(p);
    if (up === p) break;
    p = up;
  }
  if (existsSync(p) && !statSync(p).isDirectory())
    throw new ConfigError(`${path}: ${p} is a file, not a folder; give a folder for run directories (--runs-dir)`);
  for (const m of missing) mkdirSync(m);
};

/** Options of a created run: what run.json records about its config and code. */
export interface RunOrigin {
  configHash: string;
  config: unknown;
  code: WriterLine["code"];
}

/** The committed bank log: each level's events in order, and which (level, round) updates are done. */
export interface BankLog {
  events: Map<string, BankEvent[]>;
  done: Set<string>;
  /** Milliseconds spent per committed update, summed. */
  ms: number;
}
export const updateKey = (level: string, round: number) => `${level}@${round}`;

/**
 * A run directory `runs/<id>/` (docs/spec/method.md §10): append-only JSONL and atomic whole-file writes only, so a process
 * killed at any moment leaves it resumable. One process at a time holds it (run.lock with the pid).
 */
export class RunDir {
  /** This process's writers.jsonl line, appended before its first write to the run (a no-op resume writes nothing). */
  private writer: WriterLine | undefined;

  /** Finished episodes waiting for their turn in episodes.jsonl (docs/ARCHITECTURE.md §6). */
  readonly held: HeldEpisodes;

  private constructor(
    readonly path: string,
    readonly meta: RunMeta,
  ) {
    this.held = new HeldEpisodes(join(path, HELD_DIR));
  }

  static create(root: string, id: string, configYaml: string, now: Date, origin?: RunOrigin): RunDir {
    if (Buffer.byteLength(id) > MAX_NAME_BYTES) {
      throw new ConfigError(
        `name: the run id would be ${Buffer.byteLength(id)} bytes, over the ${MAX_NAME_BYTES} a file name may have (got ${JSON.stringify(id.slice(0, 40))}…); use a shorter name`,
      );
    }
    const path = resolve(root, id);
    if (existsSync(path)) throw new ConfigError(`${path}: already exists; resume it with ${hexaCommand(`run --resume ${path}`)}, or pick another name`);
    makeDirs(resolve(root));
    mkdirSync(path);
    mkdirSync(join(path, "banks"));
    const meta: RunMeta = { schemaVersion: 1, kind: RUN_MARK, id, createdAt: now.toISOString(), ...(origin ?? {}) };
    writeAtomic(join(path, FILES.config), configYaml);
    // run.json last: a directory without it was never started and is not taken for a run.
    writeJsonAtomic(join(path, FILES.meta), meta);
    return new RunDir(path, meta);
  }

  static open(dir: string): RunDir {
    const path = resolve(dir);
    if (!existsSync(path) || !statSync(path).isDirectory()) throw new ConfigError(`${dir}: no such run directory; give a path like runs/<id>`);
    const metaPath = join(path, FILES.meta);
    if (!existsSync(metaPath)) throw new ConfigError(`${dir}: not a hexa run (no ${FILES.meta}); give a directory made by hexa run`);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(metaPath, "utf8"));
    } catch {
      throw new ConfigError(`${metaPath}: not valid JSON; the run directory was damaged`);
    }
    const meta = RunMeta.safeParse(raw);
    if (!meta.success) throw new ConfigError(`${metaPath}: not a hexa run record (${meta.error.issues[0]!.path.join(".")}: ${meta.error.issues[0]!.message})`);
    // A run's id is its directory's name: a run.json copied in from another run must not pass for this one.
    if (meta.data.id !== basename(path)) {
      throw new ConfigError(
        `${metaPath}: belongs to run ${meta.data.id}, not to this directory (${basename(path)}); a run.json copied from another run? Restore this run's own, or rename the directory back to ${meta.data.id}`,
      );
    }
    return new RunDir(path, meta.data);
  }

  /** Records the process that is about to write to the run: appended to writers.jsonl before its first write. */
  writesAs(line: WriterLine): void {
    this.writer = line;
  }

  private wrote(): void {
    if (!this.writer) return;
    const line = this.writer;
    this.writer = undefined;
    appendJsonl(this.file("writers"), [line]);
  }

  writers = (): WriterLine[] => readJsonl(this.file("writers"), WriterLine, { repair: false });

  /** Removes `*.tmp-<pid>[-<suffix>]` files a killed process left between write and rename; call while holding the lock. */
  cleanTemps(): string[] {
    const removed: string[] = [];
    for (const d of [this.path, join(this.path, "banks"), this.held.path]) {
      if (!existsSync(d)) continue;
      for (const f of readdirSync(d).filter((x) => ATOMIC_TEMP.test(x))) {
        rmSync(join(d, f), { force: true });
        removed.push(join(d, f));
      }
    }
    return removed;
  }

  file = (name: keyof typeof FILES): string => join(this.path, FILES[name]);

  /** Takes the run for this process (exclusive create); a lock left by a killed process is taken over. */
  lock(): () => void {
    const path = this.file("lock");
    if (existsSync(path) && statSync(path).isDirectory())
      throw new ConfigError(`${path}: a folder, where hexa keeps the lock file of the process that holds the run; remove it and resume again`);
    return takePidLock(
      path,
      (holder) => `${this.path}: in use by ${holder}; wait for it or stop it before resuming (delete ${path} if that process is not hexa)`,
    );
  }

  configText = (): string => {
    const path = this.file("config");
    const held = this.meta.config === undefined ? "" : ` (run.json's "config" holds the values it had)`;
    return readConfigText(path, `${path}: missing; the run directory was damaged. Restore config.yaml from a copy${held}, or start a new run`);
  };

  /**
   * Each episode once, the first line of an id kept: a line duplicated (by hand or a copy) would count twice in
   * one figure and once in another. `repair: false` for readers that must not touch the run (eval, inspection).
   */
  episodes = (opts: { repair?: boolean; onDuplicate?: (ids: string[]) => void } = {}): EpisodeRecord[] => {
    const seen = new Set<string>();
    const dupes: string[] = [];
    const out = readJsonl(this.file("episodes"), EpisodeRecord, opts).filter((e) => {
      if (seen.has(e.id)) {
        dupes.push(e.id);
        return false;
      }
      seen.add(e.id);
      return true;
    });
    if (dupes.length) opts.onDuplicate?.(dupes);
    return out;
  };
  appendEpisode = (rec: EpisodeRecord): void => {
    this.wrote();
    appendJsonl(this.file("episodes"), [rec]);
  };

  notices = (opts: { repair?: boolean } = {}): NoticeLine[] => readJsonl(this.file("notices"), NoticeLine, opts);
  appendNotice = (line: NoticeLine): void => appendJsonl(this.file("notices"), [line]);

  usage = (): UsageLine[] => readJsonl(this.file("usage"), UsageLine);
  appendUsage = (line: UsageLine): void => {
    this.wrote();
    appendJsonl(this.file("usage"), [line]);
  };

  /** Reads the bank log; an update a crash left without its commit line is ignored and, unless `repair: false`, cut (resume redoes it). */
  bankLog(opts: { repair?: boolean } = {}): BankLog {
    const path = this.file("bank");
    const lines = readJsonl(path, BankLogLine, opts);
    let last = -1;
    lines.forEach((l, i) => {
      if ("commit" in l) last = i;
    });
    if (last < lines.length - 1 && opts.repair !== false) {
      const keep = readFileSync(path, "utf8")
        .split("\n")
        .slice(0, last + 1);
      truncateSync(
        path,
        keep.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0),
      );
    }
    const log: BankLog = { events: new Map(), done: new Set(), ms: 0 };
    lines.slice(0, last + 1).forEach((l) => {
      if ("commit" in l) {
        log.done.add(updateKey(l.level, l.commit.round));
        log.ms += l.commit.ms;
      } else log.events.set(l.level, [...(log.events.get(l.level) ?? []), l.event]);
    });
    return log;
  }

  /** One update's events and its commit, in one flushed write. */
  appendBankUpdate = (level: string, round: number, events: readonly BankEvent[], ms: number): void => {
    this.wrote();
    appendJsonl(this.file("bank"), [...events.map((event) => ({ level, event })), { level, commit: { round, events: events.length, ms } }]);
  };

  /** banks/ holds folds of the log only, so a deleted banks/ is made again rather than refused. */
  writeSnapshot = (round: number, banks: Record<string, Bank>): void => {
    mkdirSync(join(this.path, "banks"), { recursive: true });
    writeJsonAtomic(join(this.path, "banks", `round-${String(round).padStart(2, "0")}.json`), BankSnapshot.parse({ schemaVersion: 1, round, banks }));
  };

  snapshots = (): BankSnapshot[] =>
    (existsSync(join(this.path, "banks")) ? readdirSync(join(this.path, "banks")) : [])
      .filter((f) => /^round-\d+\.json$/.test(f))
      .sort((a, b) => Number(a.slice(6, -5)) - Number(b.slice(6, -5)))
      .map((f) => BankSnapshot.parse(JSON.parse(readFileSync(join(this.path, "banks", f), "utf8"))));

  writeMetrics = (metrics: unknown): void => writeJsonAtomic(this.file("metrics"), metrics);

  /** Why the run stopped before its end (stopped.json: a spend cap), or undefined while it may go on. */
  stopped(): StopRecord | undefined {
    const path = this.file("stopped");
    if (!existsSync(path)) return undefined;
    const parsed = StopRecord.safeParse(JSON.parse(readFileSync(path, "utf8")));
    if (!parsed.success) throw new ConfigError(`${path}: not a hexa stop record (${parsed.error.issues[0]!.message}); delete it and resume`);
    return parsed.data;
  }
  markStopped = (rec: StopRecord): void => writeJsonAtomic(this.file("stopped"), rec);
  clearStopped = (): void => rmSync(this.file("stopped"), { force: true });

  /** A new file for one held-out evaluation; earlier evaluations are kept. */
  evalFile(now: Date): string {
    mkdirSync(join(this.path, "eval"), { recursive: true });
    const path = join(this.path, "eval", `${now.toISOString().replace(/[:.]/g, "-")}.jsonl`);
    // Made now, so a run directory that cannot take it is refused before an episode is played (and paid for).
    writeFileSync(path, "", { flag: "wx" });
    return path;
  }

  appendEval = (path: string, rec: EpisodeRecord): void => appendJsonl(path, [rec]);
}

export const episodeId = (phase: Phase, level: string, round: number, seed: number) => `${phase}/${level}/r${round}/s${seed}`;
