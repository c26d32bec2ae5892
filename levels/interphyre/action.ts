import { z } from "zod";

/** Interphyre's action: one red ball (docs/spec/interphyre.md §4.1); a trajectory's `action` in this family. */
export const PlacementAction = z.object({ x: z.number(), y: z.number(), radius: z.number() });
export type PlacementAction = z.infer<typeof PlacementAction>;

/** The committed placement of a trajectory, or undefined when there is none (or it is not this family's). */
export const placementOf = (action: unknown): PlacementAction | undefined => {
  const p = PlacementAction.safeParse(action);
  return p.success ? p.data : undefined;
};
