import { z } from "zod";
import { WORLD_MAX, WORLD_MIN } from "../world/constants.ts";

/** The world's width (m): no ball in the world is farther than this from an object in it, nor larger. */
const WORLD_WIDTH = WORLD_MAX - WORLD_MIN;

/** A closed interval [lo, hi] of finite numbers inside [min, max]: what every region bound is. */
const interval = (min: number, max: number, minOpen = false) =>
  z
    .tuple([z.number(), z.number()])
    .refine(([lo, hi]) => lo <= hi, "must be [lo, hi] with lo ≤ hi")
    .refine(([lo, hi]) => (minOpen ? lo > min : lo >= min) && hi <= max, `must lie inside ${minOpen ? "(" : "["}${min}, ${max}]`);

/** An offset range (m) from a reference object's initial centre: a placement farther away is outside the world. */
export const OffsetRange = interval(-WORLD_WIDTH, WORLD_WIDTH);
/** A red-ball radius range (m). */
export const RadiusRange = interval(0, WORLD_WIDTH, true);

/** A placement region relative to an object's initial centre (or "world"), as the heuristic agent samples it. */
export const Region = z.object({ relativeTo: z.string().min(1), dx: OffsetRange, dy: OffsetRange, radius: RadiusRange.optional() });
export type Region = z.infer<typeof Region>;

/**
 * A bank entry's payload in this family (src/store/bank.ts `payload`): the region the heuristic agent reads, and
 * the transfer synthesiser's primitive. Checked wherever a bank enters a run (docs/spec/interphyre.md §5.3), so a
 * region the episode could not sample is refused with its entry's id, not met mid-run.
 */
export const InterphyreBankPayload = z.looseObject({ region: Region.optional(), primitive: z.string().optional() });
