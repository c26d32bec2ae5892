import { InvariantError } from "../../errors.ts";
import type { Budget, Spend } from "../../llm/budget.ts";

/** What a step of a job (its run, or its held-out evaluation) is forecast to cost; only the ratios matter. */
export interface Weight {
  usd: number;
  tokens: number;
}

/** Headroom a step may spend beyond what its job had spent when it started, per capped dimension. */
export interface Headroom {
  usd?: number;
  tokens?: number;
}

/**
 * One spend cap over a whole compare grid (docs/spec/method.md §11), shared among its jobs (a (cell, run): its run, then its
 * held-out evaluation), each step a child process with its own cap.
 *
 * The rule, which keeps the sum of every job's spend within the cap: each job is counted at the most it can
 * reach — what it has spent (read from its files) when idle or finished, and what it had spent when its step
 * started plus the headroom that step was given while in flight (or its files, if they already say more). What
 * is left of the cap after that, `free`, is all any new step may take, and a step takes only its forecast's
 * share of `free` among the jobs still waiting to finish (itself included, those in flight excluded: they
 * hold theirs), so the counted total never rises above the cap. A child's own gate keeps it within its headroom
 * (the gate stops before the call its estimate says would cross, as in `hexa run`). Each step gets its share
 * when it starts, so what a cheap step left over goes to the later ones.
 */
export class GridBudget {
  private readonly held = new Map<string, { atStart: Spend; headroom: Weight }>();

  constructor(
    readonly cap: Budget,
    private readonly keys: readonly string[],
    /** Everything the job has spent so far, read from its files (its run and its evaluations). */
    private readonly spentOf: (key: string) => Spend,
  ) {}

  /** The most the grid's jobs can spend as things stand (see the class comment). */
  counted(): Weight {
    let usd = 0;
    let tokens = 0;
    for (const k of this.keys) {
      const now = this.spentOf(k);
      const h = this.held.get(k);
      usd += h ? Math.max(now.usd, h.atStart.usd + h.headroom.usd) : now.usd;
      tokens += h ? Math.max(now.tokens, h.atStart.tokens + h.headroom.tokens) : now.tokens;
    }
    return { usd, tokens };
  }

  /** What the whole grid has spent so far, by its files. */
  spent(): Spend {
    return this.keys.reduce(
      (s, k) => {
        const x = this.spentOf(k);
        return { usd: s.usd + x.usd, tokens: s.tokens + x.tokens, calls: s.calls + x.calls };
      },
      { usd: 0, tokens: 0, calls: 0 },
    );
  }

  /**
   * Headroom for the step of `key` about to start: `own` its forecast, `waiting` the forecasts of every job not
   * in flight that still has work (`own` among them). undefined when the cap leaves it nothing.
   */
  take(key: string, own: Weight, waiting: readonly Weight[]): Headroom | undefined {
    if (this.held.has(key)) throw new InvariantError(`GridBudget: ${key} already holds a share`);
    const counted = this.counted();
    // A forecast of 0 still gets a sliver, so that all-zero forecasts share equally.
    const TINY = 1e-12;
    const share = (cap: number, used: number, f: (w: Weight) => number) => {
      const free = Math.max(0, cap - used);
      const total = waiting.reduce((n, w) => n + f(w) + TINY, 0);
      return total > 0 ? (free * (f(own) + TINY)) / total : 0;
    };
    const usd = this.cap.usd !== undefined ? share(this.cap.usd, counted.usd, (w) => w.usd) : undefined;
    // Whole tokens, never more than is free (the sliver above must not turn 749.9999 into 749).
    const tokens =
      this.cap.tokens !== undefined
        ? Math.min(Math.max(0, this.cap.tokens - counted.tokens), Math.floor(share(this.cap.tokens, counted.tokens, (w) => w.tokens) + 1e-6))
        : undefined;
    if ((usd !== undefined && usd <= 0) || (tokens !== undefined && tokens <= 0)) return undefined;
    this.held.set(key, { atStart: this.spentOf(key), headroom: { usd: usd ?? 0, tokens: tokens ?? 0 } });
    return { ...(usd !== undefined ? { usd } : {}), ...(tokens !== undefined ? { tokens } : {}) };
  }

  /** The step has ended: from now on the job counts at what its files say. */
  release(key: string): void {
    this.held.delete(key);
  }
}
