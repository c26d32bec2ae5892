import { mean } from "../../../src/util/stats.ts";

export interface ComponentStats {
  mean: number;
  min: number;
  max: number;
}

/** A training's curves (TrainResult's fields of the same names): one point per checkpoint. */
interface TrainingCurves {
  components: Record<string, Array<{ step: number } & ComponentStats>>;
  episodeLength: Array<{ step: number; mean: number }>;
  fitnessCurve: Array<{ step: number; fitness: number }>;
}

const stats = (x: Float64Array): ComponentStats => {
  let s = 0,
    lo = Infinity,
    hi = -Infinity;
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    s += v;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return { mean: s / x.length, min: lo, max: hi };
};

/**
 * What a training reports between checkpoints (Eureka's reward reflection): each iteration's reward components
 * and episode lengths go into the current window; a checkpoint evaluation closes it into one point per curve.
 */
export class TrainingRecord {
  readonly curves: TrainingCurves = { components: {}, episodeLength: [], fitnessCurve: [] };
  private windowComp: Record<string, { sum: number; n: number; min: number; max: number }> = {};
  private windowLens: number[] = [];

  /** One iteration's components (per transition) and ended episodes' lengths; returns the components' stats. */
  addIteration(components: Record<string, ArrayLike<number>>, episodeLengths: readonly number[]): Record<string, ComponentStats> {
    const comps: Record<string, ComponentStats> = {};
    for (const [key, v] of Object.entries(components)) {
      const s = stats(Float64Array.from(v));
      comps[key] = s;
      const w = (this.windowComp[key] ??= { sum: 0, n: 0, min: Infinity, max: -Infinity });
      w.sum += s.mean;
      w.n++;
      w.min = Math.min(w.min, s.min);
      w.max = Math.max(w.max, s.max);
    }
    this.windowLens.push(...episodeLengths);
    return comps;
  }

  /** A checkpoint at `step` with the evaluation's F per eval seed: closes the window. */
  checkpoint(step: number, evalFitness: readonly number[]): void {
    const { curves } = this;
    curves.fitnessCurve.push({ step, fitness: mean(evalFitness) });
    for (const [key, w] of Object.entries(this.windowComp)) (curves.components[key] ??= []).push({ step, mean: w.sum / w.n, min: w.min, max: w.max });
    // A window in which no training episode ended has no length point (never a null mean).
    if (this.windowLens.length) curves.episodeLength.push({ step, mean: mean(this.windowLens) });
    this.windowComp = {};
    this.windowLens = [];
  }

  /** The checkpoint with the highest F (the first of equals). */
  best(): { fitness: number; step: number } {
    const best = this.curves.fitnessCurve.reduce((a, b) => (b.fitness > a.fitness ? b : a));
    return { fitness: best.fitness, step: best.step };
  }
}
