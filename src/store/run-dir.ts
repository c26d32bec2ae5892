import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigError } from "../errors.ts";
import type { Bank, BankEvent } from "./bank.ts";
import { appendJsonl, readJsonl, writeAtomic, writeJsonAtomic } from "./jsonl.ts";
import { BankLogLine, BankSnapshot, EpisodeRecord, RUN_MARK, RunMeta, UsageLine, type Phase } from "./run-records.ts";

const FILES = {
  meta: "run.json",
  config: "config.yaml",
  episodes: "episodes.jsonl",
  bank: "bank-events.jsonl",
  usage: "usage.jsonl",
  llmLog: "llm-log.jsonl",
  metrics: "metrics.json",
  lock: "run.lock",
} as const;

/** The committed bank log: each level's events in order, and which (level, round) updates are done. */
export interface BankLog {
  events: Map<string, BankEvent[]>;
  done: Set<string>;
  /** Milliseconds spent per committed update, summed. */
  ms: number;
}
export const updateKey = (level: string, round: number) => `${level}@${round}`;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
};

/**
 * A run directory `runs/<id>/` (issue 5): append-only JSONL and atomic whole-file writes only, so a process
 * killed at any moment leaves it resumable. One process at a time holds it (run.lock with the pid).
 */
export class RunDir {
  private constructor(
    readonly path: string,
    readonly meta: RunMeta,
  ) {}

  static create(root: string, id: string, configYaml: string, now: Date): RunDir {
    const path = resolve(root, id);
    if (existsSync(path)) throw new ConfigError(`${path}: already exists; resume it with hexa run --resume ${path}, or pick another name`);
    mkdirSync(join(path, "banks"), { recursive: true });
    const meta: RunMeta = { schemaVersion: 1, kind: RUN_MARK, id, createdAt: now.toISOString() };
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
    return new RunDir(path, meta.data);
  }

  file = (name: keyof typeof FILES): string => join(this.path, FILES[name]);

  /** Takes the run for this process (exclusive create); a lock left by a killed process is taken over. */
  lock(): () => void {
    const path = this.file("lock");
    for (let attempt = 0; ; attempt++) {
      try {
        const fd = openSync(path, "wx");
        writeFileSync(fd, `${process.pid}\n`);
        closeSync(fd);
        return () => rmSync(path, { force: true });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) throw e;
      }
      const pid = Number(readFileSync(path, "utf8").trim());
      // Our own pid in the lock is a lock from an earlier life of this pid (a container restarts as pid 1).
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new ConfigError(`${this.path}: in use by process ${pid}; wait for it or stop it before resuming (delete ${path} if that process is not hexa)`);
      }
      rmSync(path, { force: true });
    }
  }

  configText = (): string => readFileSync(this.file("config"), "utf8");

  /** `repair: false` for readers that must not touch the run (eval, inspection); the run loop repairs. */
  episodes = (opts: { repair?: boolean } = {}): EpisodeRecord[] => readJsonl(this.file("episodes"), EpisodeRecord, opts);
  appendEpisode = (rec: EpisodeRecord): void => appendJsonl(this.file("episodes"), [rec]);

  usage = (): UsageLine[] => readJsonl(this.file("usage"), UsageLine);
  appendUsage = (line: UsageLine): void => appendJsonl(this.file("usage"), [line]);

  /** Reads the bank log; an update a crash left without its commit line is ignored and, unless `repair: false`, cut (resume redoes it). */
  bankLog(opts: { repair?: boolean } = {}): BankLog {
    const path = this.file("bank");
    const lines = readJsonl(path, BankLogLine, opts);
    let last = -1;
    lines.forEach((l, i) => {
      if ("commit" in l) last = i;
    });
    if (last < lines.length - 1 && opts.repair !== false) {
      const keep = readFileSync(path, "utf8").split("\n").slice(0, last + 1);
      truncateSync(path, keep.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0));
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
  appendBankUpdate = (level: string, round: number, events: readonly BankEvent[], ms: number): void =>
    appendJsonl(this.file("bank"), [...events.map((event) => ({ level, event })), { level, commit: { round, events: events.length, ms } }]);

  writeSnapshot = (round: number, banks: Record<string, Bank>): void =>
    writeJsonAtomic(join(this.path, "banks", `round-${String(round).padStart(2, "0")}.json`), BankSnapshot.parse({ schemaVersion: 1, round, banks }));

  snapshots = (): BankSnapshot[] =>
    readdirSync(join(this.path, "banks"))
      .filter((f) => /^round-\d+\.json$/.test(f))
      .sort((a, b) => Number(a.slice(6, -5)) - Number(b.slice(6, -5)))
      .map((f) => BankSnapshot.parse(JSON.parse(readFileSync(join(this.path, "banks", f), "utf8"))));

  writeMetrics = (metrics: unknown): void => writeJsonAtomic(this.file("metrics"), metrics);

  /** A new file for one held-out evaluation; earlier evaluations are kept. */
  evalFile(now: Date): string {
    mkdirSync(join(this.path, "eval"), { recursive: true });
    return join(this.path, "eval", `${now.toISOString().replace(/[:.]/g, "-")}.jsonl`);
  }

  appendEval = (path: string, rec: EpisodeRecord): void => appendJsonl(path, [rec]);
}

export const episodeId = (phase: Phase, level: string, round: number, seed: number) => `${phase}/${level}/r${round}/s${seed}`;
