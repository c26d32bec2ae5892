import { z } from "zod";
import { CHARS_PER_TOKEN } from "../src/llm/token-estimate.ts";

/** The default of ActorConfig.maxRequestChars: about 50k tokens, well inside every current model's context. */
export const DEFAULT_MAX_REQUEST_CHARS = 200_000;

/** The share of the model's context a request may fill: the rest is for the tool schemas and the answer. */
const REQUEST_SHARE_OF_CONTEXT = 0.75;

/** The actor's settings (docs/spec/method.md §1.1, §1.2); every default visible here and in `--print-config`. */
export const ActorConfig = z.strictObject({
  maxTurns: z.number().int().min(1).default(25).describe("turn budget T; every model turn counts, an unsolved episode counts as T"),
  keepTurns: z.number().int().min(1).default(4).describe("the last K turns are kept verbatim in the context"),
  compaction: z
    .enum(["context", "paper", "paper-open-weight"])
    .default("context")
    .describe(
      "how observations older than the last keepTurns turns are compacted to about oldObservationHead + oldObservationTail characters (the paper's 600): context = only while the request is longer than compactAt of its cap (oldest first), the first scene readings kept whole; paper = always, every one, scene readings included (the paper's harness); paper-open-weight = always, the first scene readings kept whole (the paper's open-weight setting, with keepTurns 6)",
    ),
  contextTokens: z
    .number()
    .int()
    .min(2_000)
    .default(128_000)
    .describe("the actor model's context window in tokens; a request is capped at 3/4 of it (at 4 characters a token) or maxRequestChars"),
  compactAt: z
    .number()
    .gt(0)
    .max(1)
    .default(0.5)
    .describe("compaction context: the share of the request cap a request may fill before older observations are compacted"),
  oldObservationHead: z
    .number()
    .int()
    .min(0)
    .default(400)
    .describe("characters kept from the start of a compacted observation's cuttable text (its outcome and goal-object lines are always kept)"),
  oldObservationTail: z.number().int().min(0).default(200).describe("characters kept from the end of a compacted observation's cuttable text"),
  maxRequestChars: z
    .number()
    .int()
    .min(10_000)
    .default(DEFAULT_MAX_REQUEST_CHARS)
    .describe(
      "cap on one request's messages in characters (their JSON), also held under 3/4 of contextTokens; over it, older thoughts, arguments and observations are cut, then the oldest turns dropped, each cut marked",
    ),
});
export type ActorConfig = z.infer<typeof ActorConfig>;

/** The request cap in characters: maxRequestChars, or less when the model's context is smaller. */
export const requestCharCap = (c: Pick<ActorConfig, "maxRequestChars" | "contextTokens">): number =>
  Math.min(c.maxRequestChars, Math.floor(c.contextTokens * CHARS_PER_TOKEN * REQUEST_SHARE_OF_CONTEXT));
