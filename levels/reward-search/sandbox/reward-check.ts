/**
 * `check_reward`: compile reward code in a fresh sandbox, run it over given transitions (a few hundred) and
 * describe what it computes: per-component ranges, constant components, survival terms (one value while the
 * episode goes on, another on the transitions that end it), the total's range, faults, and a component that
 * carries > 90% of the components' summed magnitude. A function of its inputs.
 */
import type { RewardBatchInput, RewardOutput } from "../task.ts";
import { HACK_SHARE, hackSuspect } from "../hacking-rule.ts";
import { compileReward, RewardCodeError, type RewardFault, type RewardLayout, type SandboxedReward, type SandboxLimits } from "./reward-sandbox.ts";

/** A batch of transitions to check, with where an episode ended by the task's own rule (a survival term is told apart by it). */
export interface CheckBatch extends RewardBatchInput {
  /** 1 where the transition ended its episode by the task's rule (fell, crashed); absent: unknown. */
  terminated?: Uint8Array;
}

interface RangeStats {
  min: number;
  mean: number;
  max: number;
  /** max − min ≤ 1e-9 · max(1, |mean|) over all transitions that ran. */
  constant: boolean;
}

/** A term with one value on every transition that did not end an episode and another on those that did. */
interface SurvivalTerm {
  living: number;
  ending: number;
  /** Transitions that ended an episode. */
  endings: number;
}

interface ComponentStats extends RangeStats {
  /** Σ|this component| / Σ over components of Σ|component|, over all transitions (0 when all are 0). */
  share: number;
  /** Set when the component is a survival term: it acts through episode length, not within a step. */
  survival: SurvivalTerm | null;
}

interface CheckFault extends RewardFault {
  /** Index of the first batch that raised it; -1 for compile faults. */
  batch: number;
  /** Batches that raised it. */
  count: number;
  /** The fault as written for the model. */
  text: string;
}

export interface RewardCheck {
  /** Compiled, and every batch ran without a fault. */
  ok: boolean;
  form: "perEnv" | "batched" | null;
  /** Transitions in batches that ran without a fault (the statistics cover these). */
  transitions: number;
  batches: { given: number; ran: number; faulted: number };
  components: Record<string, ComponentStats>;
  total: RangeStats | null;
  /** Transitions that ended an episode by the task's rule (0 when the batches do not say). */
  endings: number;
  /** max over transitions of |total − Σ components| (null without components). */
  sumGap: number | null;
  /** The component carrying more than HACK_SHARE of the magnitude, unless it is a survival term (by its values or its name) or the only one. */
  dominant: { component: string; share: number } | null;
  /** One per distinct fault (kind and message), in the order found. */
  faults: CheckFault[];
  /** The tool's observation for the model. */
  report: string;
}

class Accumulator {
  min = Infinity;
  max = -Infinity;
  sum = 0;
  abs = 0;
  count = 0;
  add(xs: Float64Array, keep?: (i: number) => boolean): void {
    for (let i = 0; i < xs.length; i++) {
      if (keep && !keep(i)) continue;
      const x = xs[i]!;
      if (x < this.min) this.min = x;
      if (x > this.max) this.max = x;
      this.sum += x;
      this.abs += Math.abs(x);
      this.count++;
    }
  }
  stats(): RangeStats {
    const mean = this.count > 0 ? this.sum / this.count : 0;
    return { min: this.min, mean, max: this.max, constant: this.max - this.min <= 1e-9 * Math.max(1, Math.abs(mean)) };
  }
}

/** A component's values over all transitions, over those that went on, and over those that ended an episode. */
class Split {
  readonly all = new Accumulator();
  private readonly living = new Accumulator();
  private readonly ending = new Accumulator();
  add(xs: Float64Array, ended: Uint8Array | undefined): void {
    this.all.add(xs);
    if (!ended) return;
    this.living.add(xs, (i) => !ended[i]);
    this.ending.add(xs, (i) => ended[i] === 1);
  }
  /** A survival term: constant while episodes go on, another constant on the transitions that end them. */
  survival(): SurvivalTerm | null {
    if (this.living.count === 0 || this.ending.count === 0) return null;
    const l = this.living.stats();
    const e = this.ending.stats();
    const apart = Math.abs(l.mean - e.mean) > 1e-9 * Math.max(1, Math.abs(l.mean));
    return l.constant && e.constant && apart ? { living: l.mean, ending: e.mean, endings: this.ending.count } : null;
  }
}

/** Counts a fault once per kind and message, remembering the first batch that raised it. */
function recordFault(faults: CheckFault[], e: RewardCodeError, batch: number): void {
  const seen = faults.find((f) => f.kind === e.fault.kind && f.message === e.fault.message);
  if (seen) seen.count++;
  else faults.push({ ...e.fault, batch, count: 1, text: e.message });
}

/** What the batches that ran computed, added up batch by batch. */
class BatchTally {
  readonly total = new Accumulator();
  readonly comps = new Map<string, Split>();
  endings = 0;
  sumGap: number | null = null;
  ran = 0;
  faulted = 0;
  transitions = 0;

  add(b: CheckBatch, out: RewardOutput): void {
    this.ran++;
    this.transitions += b.n;
    this.total.add(out.total);
    const ended = b.terminated;
    if (ended) for (let i = 0; i < b.n; i++) this.endings += ended[i] ? 1 : 0;
    const names = Object.keys(out.components);
    for (const name of names) {
      let acc = this.comps.get(name);
      if (!acc) this.comps.set(name, (acc = new Split()));
      acc.add(out.components[name]!, ended);
    }
    if (names.length > 0) {
      for (let i = 0; i < b.n; i++) {
        let s = 0;
        for (const name of names) s += out.components[name]![i]!;
        this.sumGap = Math.max(this.sumGap ?? 0, Math.abs(out.total[i]! - s));
      }
    }
  }
}

/** Runs the compiled code over every batch, recording faults; disposes of the program. */
function runBatches(program: SandboxedReward, batches: readonly CheckBatch[], faults: CheckFault[]): BatchTally {
  const tally = new BatchTally();
  try {
    for (let k = 0; k < batches.length; k++) {
      const b = batches[k]!;
      let out: RewardOutput;
      try {
        out = program.evaluate(b);
      } catch (e) {
        if (!(e instanceof RewardCodeError)) throw e;
        recordFault(faults, e, k);
        tally.faulted++;
        // A timeout or memory fault would repeat on every batch, each costing the full limit.
        if (e.fault.kind === "timeout" || e.fault.kind === "memory") break;
        continue;
      }
      tally.add(b, out);
    }
  } finally {
    program.dispose();
  }
  return tally;
}

/** Each component's range, share of the summed magnitude and survival term, keyed by the names the code gave. */
function componentStatsOf(comps: ReadonlyMap<string, Split>): Record<string, ComponentStats> {
  const magnitude = [...comps.values()].reduce((a, c) => a + c.all.abs, 0);
  const components: Record<string, ComponentStats> = {};
  for (const [name, acc] of comps) {
    Object.defineProperty(components, name, {
      value: { ...acc.all.stats(), share: magnitude > 0 ? acc.all.abs / magnitude : 0, survival: acc.survival() },
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return components;
}

/** The component the family's hacking rule suspects (hacking-rule.ts): over HACK_SHARE, not a survival term, not the only one. */
function dominantOf(components: Record<string, ComponentStats>): RewardCheck["dominant"] {
  const s = hackSuspect(Object.entries(components).map(([name, c]) => ({ name, share: c.share, survival: c.survival !== null })));
  return s ? { component: s.name, share: s.share } : null;
}

export async function checkReward(code: string, layout: RewardLayout, batches: readonly CheckBatch[], limits?: Partial<SandboxLimits>): Promise<RewardCheck> {
  const faults: CheckFault[] = [];
  let program: SandboxedReward;
  try {
    program = await compileReward(code, layout, limits);
  } catch (e) {
    if (!(e instanceof RewardCodeError)) throw e;
    recordFault(faults, e, -1);
    const result = emptyCheck(batches.length, faults);
    return { ...result, report: renderReport(result) };
  }
  const tally = runBatches(program, batches, faults);
  const components = componentStatsOf(tally.comps);
  const result: Omit<RewardCheck, "report"> = {
    ok: faults.length === 0,
    form: program.form,
    transitions: tally.transitions,
    batches: { given: batches.length, ran: tally.ran, faulted: tally.faulted },
    components,
    total: tally.ran > 0 ? tally.total.stats() : null,
    endings: tally.endings,
    sumGap: tally.sumGap,
    dominant: dominantOf(components),
    faults,
  };
  return { ...result, report: renderReport(result) };
}

function emptyCheck(given: number, faults: CheckFault[]): Omit<RewardCheck, "report"> {
  return {
    ok: false,
    form: null,
    transitions: 0,
    batches: { given, ran: 0, faulted: 0 },
    components: {},
    total: null,
    endings: 0,
    sumGap: null,
    dominant: null,
    faults,
  };
}

/*
 * check_reward's observation: what the code computed, then faults (what must be fixed) apart from notes (what
 * to know). A constant term and a dominating one are information, not verdicts: a constant term still acts
 * through episode length where episodes end early, and a survival term (cartpole's hand-written `alive`) is
 * meant to carry most of the reward, so it is named as one and never reported as dominating.
 */

/** 4 significant digits, no trailing zeros. */
export const fmt = (x: number): string => (Number.isFinite(x) ? String(Number(x.toPrecision(4))) : String(x));
const pct = (x: number) => `${Math.round(100 * x)}%`;

type Check = Omit<RewardCheck, "report">;

const componentLines = (c: Check): string[] => {
  const names = Object.keys(c.components);
  if (names.length === 0) return c.total ? ["components: none (return named terms in components to see what each contributes)"] : [];
  const w = Math.max(...names.map((n) => n.length));
  return [
    "components (share = its part of the summed |component| values):",
    ...names.map((n) => {
      const s = c.components[n]!;
      const kind = s.survival
        ? ` (survival term: ${fmt(s.survival.living)} while the episode goes on, ${fmt(s.survival.ending)} on the ${s.survival.endings} transitions that ended one)`
        : s.constant
          ? " (constant)"
          : "";
      return `  ${n.padEnd(w)}  min ${fmt(s.min)}, mean ${fmt(s.mean)}, max ${fmt(s.max)}, share ${pct(s.share)}${kind}`;
    }),
  ];
};

/** What a constant term does, said for the sample at hand: through episode length only, when episodes end early. */
const constantNote = (what: string, value: number, c: Check): string =>
  `${what} is the same (${fmt(value)}) on all ${c.transitions} transitions: it does not tell one action from another within a step; ` +
  (c.endings > 0
    ? `it still acts through episode length, since episodes end early (${c.endings} of these transitions ended one): a positive constant rewards living longer, a negative one ending sooner`
    : "none of these transitions ended an episode, so it acts only if episodes can end before the time limit");

const notesOf = (c: Check): string[] => {
  const notes: string[] = [];
  if (c.total?.constant && c.transitions > 1) notes.push(constantNote("total", c.total.mean, c));
  for (const [n, s] of Object.entries(c.components)) if (s.constant && c.transitions > 1) notes.push(constantNote(`component "${n}"`, s.mean, c));
  if (c.dominant) {
    notes.push(
      `component "${c.dominant.component}" carries ${pct(c.dominant.share)} of the summed |component| values (over ${pct(HACK_SHARE)}): the other terms change the total little next to it; ` +
        "that is intended when it is the term that tracks F, otherwise PPO may learn to optimise it alone",
    );
  }
  if (c.sumGap !== null && c.total && c.sumGap > 1e-9 * Math.max(1, Math.abs(c.total.max), Math.abs(c.total.min))) {
    notes.push(`total differs from the sum of components by up to ${fmt(c.sumGap)}; the trainer optimises total, the components are only reported`);
  }
  return notes;
};

function renderReport(c: Check): string {
  const compileFault = c.faults.find((f) => f.batch === -1);
  if (compileFault) return `check_reward: the code did not compile.\n- ${compileFault.text}`;
  const fn = c.form === "batched" ? "rewardBatch(batch)" : "reward(obs, action, nextObs, info)";
  const head = `check_reward: ran ${fn} on ${c.transitions} transitions (${c.batches.ran} of ${c.batches.given} batches)`;
  const lines = [
    c.faults.length === 0
      ? `${head}; no faults.`
      : `${head}; ${c.faults.length} fault${c.faults.length === 1 ? "" : "s"} (${c.batches.faulted} batch${c.batches.faulted === 1 ? "" : "es"} failed).`,
  ];
  if (c.total) lines.push(`total: min ${fmt(c.total.min)}, mean ${fmt(c.total.mean)}, max ${fmt(c.total.max)}`);
  lines.push(...componentLines(c));
  const faults = c.faults.map((f) => `fault in batch ${f.batch}${f.count > 1 ? ` (and ${f.count - 1} later batch${f.count > 2 ? "es" : ""})` : ""}: ${f.text}`);
  if (faults.length > 0) lines.push("faults (fix these):", ...faults.map((x) => `- ${x}`));
  const notes = notesOf(c);
  if (notes.length > 0) lines.push("notes:", ...notes.map((x) => `- ${x}`));
  return lines.join("\n");
}
