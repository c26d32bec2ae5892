import type { Diagnostics, HpSet, HpSpace } from "./p2p-ports.ts";

/**
 * Hyper-parameter changes of the p2p strategy: checked against the space's bounds (a change that leaves them, names
 * a field outside the space or misstates the old value is refused with a message naming the field), and the HP
 * rules a training's diagnostics fire (docs/spec/reward-search.md §8.6).
 */

export type HpChanges = Readonly<Record<string, readonly [number, number]>>;

/** Why `changes` cannot apply to `hp` in `space`, naming the field and value; null when they can. */
export const hpChangeProblem = (changes: HpChanges, hp: HpSet, space: HpSpace): string | null => {
  for (const [name, pair] of Object.entries(changes)) {
    const bounds = space.bounds[name];
    if (!bounds) return `hpChanges.${name}: not a hyper-parameter that may change; use one of ${Object.keys(space.bounds).join(", ")}`;
    const [old, next] = pair;
    if (!Number.isFinite(next)) return `hpChanges.${name}: the new value ${String(next)} is not a finite number`;
    const current = hp[name]!;
    if (Math.abs(old - current) > 1e-12 * Math.max(1, Math.abs(current)))
      return `hpChanges.${name}: the old value ${old} is not the current ${current}; write [${current}, new]`;
    if (next < bounds[0] || next > bounds[1]) return `hpChanges.${name}: ${next} is outside its bounds [${bounds[0]}, ${bounds[1]}]`;
  }
  return null;
};

/** `hp` with `changes` applied (checked first: hpChangeProblem). */
export const applyHpChanges = (hp: HpSet, changes: HpChanges): HpSet => {
  const out: Record<string, number> = { ...hp };
  for (const [name, [, next]] of Object.entries(changes)) out[name] = next;
  return out;
};

/** A value moved by factor `f`, clamped to the field's bounds. */
export const scaledWithin = (space: HpSpace, name: string, value: number, f: number): number => {
  const [lo, hi] = space.bounds[name]!;
  return Math.min(hi, Math.max(lo, value * f));
};

/** Thresholds of the HP rules (Prompt-to-Policy's reviser prompt gives the KL one; the rest are PPO's usual signs). */
const KL_HIGH = 0.02;
const CLIP_FRAC_HIGH = 0.3;
const ENTROPY_LOW = -1;
const EXPLAINED_VARIANCE_LOW = 0;

export interface HpRule {
  /** The sentence the reviser is shown. */
  text: string;
  /** The change it suggests, when the space has its field. */
  change?: { name: string; factor: number };
}

/** The HP rules that fire on `d` (mean diagnostics of a configuration's trainings). */
export const hpRules = (d: Diagnostics | null): HpRule[] => {
  if (!d) return [];
  const out: HpRule[] = [];
  const r = (x: number | null) => (x === null ? "n/a" : Number(x.toPrecision(3)));
  if (d.approxKl !== null && d.approxKl > KL_HIGH)
    out.push({ text: `approx KL ${r(d.approxKl)} > ${KL_HIGH}: halve the learning rate`, change: { name: "learningRate", factor: 0.5 } });
  if (d.clipFrac !== null && d.clipFrac > CLIP_FRAC_HIGH)
    out.push({
      text: `clip fraction ${r(d.clipFrac)} > ${CLIP_FRAC_HIGH}: updates too large, lower the learning rate`,
      change: { name: "learningRate", factor: 0.7 },
    });
  if (d.entropy !== null && d.entropy < ENTROPY_LOW)
    out.push({
      text: `entropy ${r(d.entropy)} < ${ENTROPY_LOW}: exploration collapsed, double the entropy coefficient`,
      change: { name: "entCoef", factor: 2 },
    });
  if (d.explainedVariance !== null && d.explainedVariance < EXPLAINED_VARIANCE_LOW)
    out.push({
      text: `explained variance ${r(d.explainedVariance)} < ${EXPLAINED_VARIANCE_LOW}: the critic does not fit the returns, raise the value coefficient`,
      change: { name: "vfCoef", factor: 1.5 },
    });
  return out;
};

/** Mean of each diagnostic over trainings (nulls left out per field; null when no training reported any). */
export const meanDiagnostics = (ds: readonly (Diagnostics | null)[]): Diagnostics | null => {
  const got = ds.filter((d): d is Diagnostics => d !== null);
  if (!got.length) return null;
  const m = (k: keyof Diagnostics) => {
    const xs = got.map((d) => d[k]).filter((x): x is number => x !== null);
    return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
  };
  return { approxKl: m("approxKl"), clipFrac: m("clipFrac"), entropy: m("entropy"), explainedVariance: m("explainedVariance") };
};
