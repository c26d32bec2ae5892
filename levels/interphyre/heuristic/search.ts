import type { LevelInstance } from "../instance.ts";
import { checkPlacement } from "../world/placement.ts";
import type { Rng } from "../../../src/util/rng.ts";
import type { Action } from "../world/simulation.ts";
import { closest, shapesOf } from "../tools/scene-geometry.ts";
import type { Candidate } from "./candidates.ts";
import { avoidWeight, type HeuristicHint } from "./hints.ts";

type Pose = { x: number; y: number; angle: number };

/** Surface gap between the goal pair at the given poses (objects missing from `poses` keep their scene pose). */
export const goalGap = (inst: LevelInstance, poses: Record<string, Pose>): number => {
  const [a, b] = inst.goal.map((name) => shapesOf(inst.scene[name]!, poses[name] ?? inst.scene[name]!));
  return Math.max(0, closest(a!, b!).gap);
};

/**
 * Near-miss score of a full rollout, higher is better: a held goal contact beats any distance, and a longer
 * hold beats a shorter one; without contact, the smaller the final gap between the goal pair the better.
 */
export const nearMissScore = (inst: LevelInstance, held: number, finalPoses: Record<string, Pose>): number =>
  held > 0 ? 10 + held : -goalGap(inst, finalPoses);

interface Tried {
  action: Action;
  score: number;
  family: string;
}

/** Diversity kernel width (m): explorations keep this far from what was already tried. */
const SPREAD = 0.5;
/** Each test of a family makes its next member less attractive, so every target object gets a look. */
const FAMILY_PENALTY = 0.08;
const dist = (a: Action, b: Action) => Math.hypot(a.x - b.x, a.y - b.y, 2 * (a.radius - b.radius));

/** The agent's memory of one episode: untested candidates, tested placements and their near-miss scores. */
export class Search {
  private readonly pool: Candidate[];
  private readonly tried: Tried[] = [];
  /** Score of the scene left alone (the probe); a placement "made progress" when it beats this. */
  baseline = -Infinity;
  private refinements = 0;
  private stale = 0;
  private bestAtLastRefine: number | undefined;

  constructor(
    private readonly inst: LevelInstance,
    private readonly hints: readonly HeuristicHint[],
    candidates: Candidate[],
  ) {
    this.pool = candidates.map((c) => ({ ...c, prior: c.prior - 3 * avoidWeight(inst, hints, c.action) }));
  }

  /** Tried placements best first. */
  ranked(): Tried[] {
    return [...this.tried].sort((p, q) => q.score - p.score);
  }

  record(action: Action, score: number, family: string): void {
    this.tried.push({ action, score, family });
  }

  /** Whether the best rollout so far moved the goal pair closer than leaving the scene alone did. */
  progress(): boolean {
    const best = this.ranked()[0];
    return best !== undefined && best.score > this.baseline + 0.05;
  }

  /** The most promising untested candidate, discounted near placements already tested or screened out. */
  explore(): Candidate | undefined {
    let pick: { c: Candidate; value: number; i: number } | undefined;
    this.pool.forEach((c, i) => {
      const crowd = this.tried.reduce((s, t) => s + Math.exp(-((dist(c.action, t.action) / SPREAD) ** 2)), 0);
      const tries = this.tried.filter((t) => t.family === c.family).length;
      const value = c.prior - 1.5 * crowd - FAMILY_PENALTY * tries;
      if (!pick || value > pick.value) pick = { c, value, i };
    });
    if (!pick) return undefined;
    this.pool.splice(pick.i, 1);
    return pick.c;
  }

  /**
   * A perturbation of the best near miss; the step shrinks as refinements accumulate, and after four that
   * did not improve on it, every other one perturbs a runner-up from elsewhere that came almost as close
   * (one near miss can be a dead end).
   */
  refine(rng: Rng): Candidate | undefined {
    const ranked = this.ranked().filter((t) => Number.isFinite(t.score));
    const best = ranked[0];
    if (!best) return undefined;
    if (this.bestAtLastRefine !== undefined && best.score <= this.bestAtLastRefine) this.stale++;
    else this.stale = 0;
    this.bestAtLastRefine = best.score;
    const other = ranked.find((t) => dist(t.action, best.action) > SPREAD && t.score > Math.max(this.baseline + 0.05, best.score - 1));
    const base = this.stale >= 4 && this.stale % 2 === 0 && other ? other : best;
    const sigma = Math.max(0.04, 0.4 * 0.8 ** this.refinements);
    this.refinements++;
    for (let i = 0; i < 30; i++) {
      const raw = {
        x: Math.round((base.action.x + rng.normal(0, sigma)) * 1e4) / 1e4,
        y: Math.round((base.action.y + rng.normal(0, sigma)) * 1e4) / 1e4,
        radius: Math.round((base.action.radius + rng.normal(0, sigma / 3)) * 1e4) / 1e4,
      };
      const p = checkPlacement(this.inst.scene, raw, this.inst.bounds);
      if (!p.ok || avoidWeight(this.inst, this.hints, p.action) > 0) continue;
      if (this.tried.some((t) => dist(t.action, p.action) < 1e-3)) continue;
      const what = base.score >= 10 ? `held the goal ${(base.score - 10).toFixed(2)} s` : `ended ${(-base.score).toFixed(2)} m apart`;
      return { action: p.action, family: base.family, prior: 0, why: `perturb the near miss that ${what} (σ=${sigma.toFixed(2)})` };
    }
    return undefined;
  }
}
