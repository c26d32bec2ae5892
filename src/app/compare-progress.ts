import { closeSync, existsSync, fstatSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import type { LevelFamily } from "../family/family.ts";
import type { RunConfig } from "../loop/run-config.ts";
import { schedule } from "../loop/schedule.ts";
import { isEvalFileName } from "../store/run-dir.ts";
import type { Progress } from "../loop/run-loop.ts";
import type { ProgressView } from "./progress.ts";

/**
 * `hexa compare`'s progress bar (the one `hexa run` draws, src/app/progress.ts) over the whole grid: each (cell, run)
 * is a child process, so its episodes are followed in the files the child writes (episodes.jsonl, the held-out
 * evaluation's eval/*.jsonl, usage.jsonl), read from where the last look stopped. Display only: the results are
 * computed from the parsed records at the end.
 */

/** A (cell, run) of the grid as the bar counts it. */
interface TrackedJob {
  cfg: RunConfig;
}

/** The grid's held-out seeds per level (every run plays them all). */
type HeldOut = Record<string, number[]>;

/** The episodes a job plays in all: offline and stream episodes of its run, then its held-out ones (a search: none). */
const plannedEpisodes = (cfg: RunConfig, heldOut: HeldOut, family: LevelFamily): number => {
  if (family.search?.searchFor(cfg)) return 0;
  const run = [...schedule(cfg, family).values()].reduce((n, s) => n + s.offline.length + s.rounds.flat().length, 0);
  return run + cfg.levels.reduce((n, l) => n + (heldOut[l]?.length ?? 0), 0);
};

/** A JSONL file read from where the last read stopped; a file cut shorter (a resume's repair) is read again. */
class Tail {
  private offset = 0;
  private rest = "";
  constructor(readonly path: string) {}

  /** The complete lines added since the last call, parsed; a line that does not parse is skipped. */
  read(onReset: () => void): Record<string, unknown>[] {
    if (!existsSync(this.path)) return [];
    const fd = openSync(this.path, "r");
    try {
      const size = fstatSync(fd).size;
      if (size < this.offset) {
        this.offset = 0;
        this.rest = "";
        onReset();
      }
      if (size === this.offset) return [];
      const buf = Buffer.alloc(size - this.offset);
      readSync(fd, buf, 0, buf.length, this.offset);
      this.offset = size;
      const lines = (this.rest + buf.toString("utf8")).split("\n");
      this.rest = lines.pop()!;
      return lines.flatMap((l) => {
        try {
          const v: unknown = JSON.parse(l);
          return v !== null && typeof v === "object" ? [v as Record<string, unknown>] : [];
        } catch {
          return [];
        }
      });
    } finally {
      closeSync(fd);
    }
  }
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** What one job's files say so far. */
class JobCount {
  private readonly episodes = new Map<string, { success: boolean; round: number; phase: string }>();
  private readonly tails = new Map<string, Tail>();
  private tokens = 0;
  private costUsd = 0;
  last: { phase: string; round: number } | undefined;

  constructor(private readonly heldOut: HeldOut) {}

  private tail(path: string): Tail {
    if (!this.tails.has(path)) this.tails.set(path, new Tail(path));
    return this.tails.get(path)!;
  }

  private record(key: string, e: Record<string, unknown>) {
    if (this.episodes.has(key)) return;
    const t = (e.trajectory ?? {}) as { success?: unknown; usage?: { input?: unknown; output?: unknown; costUsd?: unknown } };
    const phase = String(e.phase);
    this.episodes.set(key, { success: t.success === true, round: num(e.round), phase });
    // A held-out episode is played after the last round: the bar keeps showing that round.
    if (phase !== "eval") this.last = { phase, round: num(e.round) };
    // Held-out episodes' model calls are in their records only; a run's calls are in usage.jsonl.
    if (phase === "eval") {
      this.tokens += num(t.usage?.input) + num(t.usage?.output);
      this.costUsd += num(t.usage?.costUsd);
    }
  }

  read(dir: string): void {
    const clear = (phase: (p: string) => boolean) => () => {
      for (const [k, v] of this.episodes) if (phase(v.phase)) this.episodes.delete(k);
    };
    for (const e of this.tail(join(dir, "episodes.jsonl")).read(clear((p) => p !== "eval")))
      if (e.phase === "offline" || e.phase === "stream") this.record(String(e.id), e);
    const evalDir = join(dir, "eval");
    const held = this.heldOut;
    const files = existsSync(evalDir) ? readdirSync(evalDir).filter(isEvalFileName).sort() : [];
    for (const f of files)
      for (const e of this.tail(join(evalDir, f)).read(() => {}))
        if (held[String(e.level)]?.includes(num(e.seed))) this.record(`eval/${String(e.level)}/${num(e.seed)}`, e);
    for (const u of this.tail(join(dir, "usage.jsonl")).read(() => ((this.tokens = 0), (this.costUsd = 0)))) {
      this.tokens += num(u.input) + num(u.output);
      this.costUsd += num(u.costUsd);
    }
  }

  totals() {
    const all = [...this.episodes.values()];
    return { done: all.length, successes: all.filter((e) => e.success).length, tokens: this.tokens, costUsd: this.costUsd };
  }
}

/** The grid's progress: call `look` whenever a child may have written (a timer does it every second meanwhile). */
export const gridProgress = <J extends TrackedJob>(
  jobs: readonly J[],
  heldOut: HeldOut,
  family: LevelFamily,
  dirOf: (job: J) => string | undefined,
  view: ProgressView,
  everyMs = 1000,
) => {
  const counts = jobs.map(() => new JobCount(heldOut));
  const total = jobs.reduce((n, j) => n + plannedEpisodes(j.cfg, heldOut, family), 0);
  const running = new Set<JobCount>();
  let shown = -1;
  const look = () => {
    counts.forEach((c, i) => {
      const dir = dirOf(jobs[i]!);
      if (dir) c.read(dir);
    });
    const sum = counts
      .map((c) => c.totals())
      .reduce((a, b) => ({ done: a.done + b.done, successes: a.successes + b.successes, tokens: a.tokens + b.tokens, costUsd: a.costUsd + b.costUsd }));
    if (sum.done === shown) return;
    shown = sum.done;
    // The phase of the runs in play: offline while any is, else the lowest round they have reached.
    const lasts = [...running].flatMap((c) => (c.last ? [c.last] : []));
    const offline = lasts.some((l) => l.phase === "offline") || lasts.length === 0;
    const round = offline ? 0 : Math.min(...lasts.map((l) => l.round));
    const p: Progress = { phase: offline ? "offline" : "stream", round, total, ...sum };
    view.update(p);
  };
  const timer = setInterval(look, everyMs);
  timer.unref();
  return {
    total,
    look,
    started: (job: J) => void running.add(counts[jobs.indexOf(job)]!),
    ended: (job: J) => {
      look();
      running.delete(counts[jobs.indexOf(job)]!);
    },
    stop: () => {
      clearInterval(timer);
      look();
      view.stop();
    },
  };
};
