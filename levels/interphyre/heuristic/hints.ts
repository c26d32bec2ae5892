import { z } from "zod";
import type { LevelInstance } from "../instance.ts";
import { checkPlacement } from "../world/placement.ts";
import type { Rng } from "../../../src/util/rng.ts";
import type { Action } from "../world/simulation.ts";
import { OffsetRange, RadiusRange } from "./region.ts";

const relativeTo = z.string().describe('object name whose initial centre is the origin of dx/dy, or "world"');

/**
 * What the heuristic agent takes from a skill bank: regions to sample placements from (in proportion to
 * weight) and regions to stay out of. Offsets are metres from the reference object's initial centre.
 */
export const HeuristicHint = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("region"),
    relativeTo,
    dx: OffsetRange,
    dy: OffsetRange,
    radius: RadiusRange.optional().describe("red-ball radius range; the level default when absent"),
    weight: z.number().positive(),
  }),
  z.object({ kind: z.literal("avoid"), relativeTo, dx: OffsetRange, dy: OffsetRange, weight: z.number().positive() }),
]);
export type HeuristicHint = z.infer<typeof HeuristicHint>;

/** Hint-derived placements per episode, shared among the region hints by weight. */
const HINT_SAMPLES = 12;
/** Hint placements go before every generic candidate: a skill is evidence from solved seeds. */
const HINT_PRIOR = 10;

const origin = (inst: LevelInstance, name: string): [number, number] | undefined => {
  if (name === "world") return [0, 0];
  const o = inst.scene[name];
  return o ? [o.x, o.y] : undefined;
};

const inRange = (v: number, [lo, hi]: readonly [number, number]) => v >= lo && v <= hi;

/** Summed weight of the avoid hints whose region contains the placement's centre. */
export const avoidWeight = (inst: LevelInstance, hints: readonly HeuristicHint[], a: Action): number =>
  hints.reduce((sum, h) => {
    if (h.kind !== "avoid") return sum;
    const o = origin(inst, h.relativeTo);
    return o && inRange(a.x - o[0], h.dx) && inRange(a.y - o[1], h.dy) ? sum + h.weight : sum;
  }, 0);

interface HintCandidate {
  action: Action;
  prior: number;
  why: string;
}

const mid = ([lo, hi]: readonly [number, number]) => (lo + hi) / 2;

/** Valid placements from the region hints: each region's centre first, then uniform draws inside it. */
export const hintCandidates = (inst: LevelInstance, hints: readonly HeuristicHint[], rng: Rng): HintCandidate[] => {
  const regions = hints.flatMap((h) => (h.kind === "region" ? [h] : []));
  const total = regions.reduce((s, h) => s + h.weight, 0);
  const out: HintCandidate[] = [];
  regions.forEach((h, i) => {
    const o = origin(inst, h.relativeTo);
    if (!o) return;
    const n = Math.max(1, Math.round((HINT_SAMPLES * h.weight) / total));
    const where = `hint ${i + 1} region (${h.relativeTo} + dx [${h.dx.join(", ")}], dy [${h.dy.join(", ")}])`;
    for (let k = 0, tries = 0; k < n && tries < 30 * n; tries++) {
      const centre = tries === 0;
      const raw = {
        x: o[0] + (centre ? mid(h.dx) : rng.uniform(h.dx[0], h.dx[1])),
        y: o[1] + (centre ? mid(h.dy) : rng.uniform(h.dy[0], h.dy[1])),
        radius: h.radius ? (centre ? mid(h.radius) : rng.uniform(h.radius[0], h.radius[1])) : inst.defaultRadius,
      };
      const p = checkPlacement(inst.scene, raw, inst.bounds);
      if (!p.ok || avoidWeight(inst, hints, p.action) > 0) continue;
      out.push({ action: p.action, prior: HINT_PRIOR + h.weight - k * 0.01, why: `${centre ? "centre of" : "a draw from"} ${where}` });
      k++;
    }
  });
  return out;
};
