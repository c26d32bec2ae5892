import { z } from "zod";

/** The actor's settings (method.md §1, issue 4); every default visible here and in `--print-config`. */
export const ActorConfig = z.strictObject({
  maxTurns: z.number().int().min(1).default(25).describe("turn budget T; every model turn counts, an unsolved episode counts as T"),
  keepTurns: z.number().int().min(1).default(4).describe("the last K turns are kept verbatim in the context"),
  oldObservationHead: z.number().int().min(0).default(240).describe("characters kept from the start of an older observation"),
  oldObservationTail: z.number().int().min(0).default(120).describe("characters kept from the end of an older observation"),
  horizon: z.number().int().min(1).default(2000).describe("rollout horizon in steps (the HExA harness used 2000)"),
  toolSet: z.enum(["paper", "extended"]).default("extended").describe("which tools the actor may call"),
});
export type ActorConfig = z.infer<typeof ActorConfig>;
