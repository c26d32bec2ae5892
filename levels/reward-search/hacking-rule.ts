/**
 * The one reward-hacking rule of the family (docs/spec/reward-search.md §6), shared by `check_reward`
 * (sandbox/reward-check.ts), the training feedback (tools/feedback.ts) and the heuristic proposer
 * (proposers/feedback-signals.ts):
 * - a term **dominates** when it carries more than HACK_SHARE of the components' summed magnitude;
 * - a **survival term** (one value on every step while the episode goes on, another on the steps that end it, or
 *   a term named as one: `alive`, `survival`, `healthy` …) and a **one-term reward** are never a hack: the first
 *   acts through episode length and is meant to carry most of the reward, the second has nothing to dominate;
 * - the **alarm** fires on a dominating term, neither of those, whose value rose over training while F did not
 *   follow it. check_reward sees no training, so it reports a dominating term as a note, never as an alarm.
 */

/** Share of the components' summed |value| above which one term dominates (Prompt-to-Policy's alarm). */
export const HACK_SHARE = 0.9;

/** Names that declare a survival term. */
const SURVIVAL_NAME = /alive|surviv|living|healthy/i;

export const namedSurvival = (name: string): boolean => SURVIVAL_NAME.test(name);

/** One term of a reward as the rule reads it: its share of the magnitude, and whether its values make it a survival term. */
export interface TermShare {
  name: string;
  share: number;
  /** Its values are one constant while episodes go on and another on the steps that end them. */
  survival: boolean;
}

/** The term that dominates and may be a hack (not a survival term, not the only term); null when none. */
export const hackSuspect = (terms: readonly TermShare[]): { name: string; share: number } | null => {
  if (terms.length < 2) return null;
  const top = [...terms].sort((a, b) => b.share - a.share)[0]!;
  if (top.share <= HACK_SHARE || top.survival || namedSurvival(top.name)) return null;
  return { name: top.name, share: top.share };
};

/** A term's per-window statistics over training (the trainer's reward reflection). */
interface Window {
  mean: number;
  min: number;
  max: number;
}

/** 1e-9 relative: values equal to the precision the trainer's statistics carry. */
const same = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/**
 * A survival term seen from training windows: every window's min and max take one of two values, the living one
 * non-zero (a term that is 0 while the episode goes on adds nothing per step: an end-of-episode bonus), and each
 * window's mean closer to the living value than to the other.
 */
export const survivalOverTraining = (windows: readonly Window[]): boolean => {
  const values: number[] = [];
  for (const w of windows) for (const v of [w.min, w.max]) if (!values.some((x) => same(x, v))) values.push(v);
  if (!windows.length || values.length > 2) return false;
  const near = (w: Window, v: number) => Math.abs(w.mean - v);
  const living = values.find((v) => windows.every((w) => values.every((o) => near(w, v) <= near(w, o))));
  return living !== undefined && !same(living, 0);
};

/** F did not follow a term that rose over training: the term's last window above its first while F's last checkpoint is not above its first. */
export const fDidNotFollow = (term: readonly number[], fitness: readonly number[]): boolean =>
  term.length >= 2 && fitness.length >= 2 && term.at(-1)! > term[0]! && !same(term.at(-1)!, term[0]!) && fitness.at(-1)! <= fitness[0]!;
