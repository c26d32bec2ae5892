import { z } from "zod";
import { HEXA_HARNESS_HORIZON_STEPS } from "./world/constants.ts";
import { TOOL_SETS } from "./tools/index.ts";
import { ENGINE_FIELD } from "./world/engines.ts";

/** Interphyre's slice of a run config (`interphyre:`), docs/ARCHITECTURE.md §3: the horizon and tool set are this family's, not the actor's. */
export const InterphyreConfig = z.strictObject({
  horizon: z.number().int().min(1).default(HEXA_HARNESS_HORIZON_STEPS).describe("rollout horizon in steps (the HExA harness used 2000)"),
  engine: ENGINE_FIELD,
  toolSet: z
    .enum(Object.keys(TOOL_SETS) as [keyof typeof TOOL_SETS, ...(keyof typeof TOOL_SETS)[]])
    .default("extended")
    .describe("which tools the actor may call: paper (the HExA harness's) or extended (adds check_placement, snapshot, intervene)"),
});
export type InterphyreConfig = z.infer<typeof InterphyreConfig>;

/**
 * Config files written before the family seam kept Interphyre's horizon and tool set under `actor` (and named no
 * family: Interphyre was the only one); they now live in this slice, so those run directories resume.
 */
export const upgradeInterphyre = (r: Record<string, unknown>): Record<string, unknown> => {
  const actor = r.actor;
  if (actor === null || typeof actor !== "object" || Array.isArray(actor)) return r;
  const { horizon, toolSet, ...rest } = actor as Record<string, unknown>;
  if (horizon === undefined && toolSet === undefined) return r;
  if ((r.family ?? "interphyre") !== "interphyre") return r;
  const moved = { ...(horizon === undefined ? {} : { horizon }), ...(toolSet === undefined ? {} : { toolSet }) };
  return { ...r, actor: rest, interphyre: { ...moved, ...((r.interphyre as object | undefined) ?? {}) } };
};
