import { z } from "zod";
import { DEFAULT_MAX_REQUEST_CHARS } from "./context.ts";

/** The actor's settings (docs/spec/method.md §1.1, §1.2); every default visible here and in `--print-config`. */
export const ActorConfig = z.strictObject({
  maxTurns: z.number().int().min(1).default(25).describe("turn budget T; every model turn counts, an unsolved episode counts as T"),
  keepTurns: z.number().int().min(1).default(4).describe("the last K turns are kept verbatim in the context"),
  oldObservationHead: z.number().int().min(0).default(240).describe("characters kept from the start of an older observation"),
  oldObservationTail: z.number().int().min(0).default(120).describe("characters kept from the end of an older observation"),
  maxRequestChars: z
    .number()
    .int()
    .min(10_000)
    .default(DEFAULT_MAX_REQUEST_CHARS)
    .describe(
      "cap on one request's messages in characters (their JSON); over it, older thoughts, arguments and observations are cut, then the oldest turns dropped, each cut marked",
    ),
});
export type ActorConfig = z.infer<typeof ActorConfig>;
