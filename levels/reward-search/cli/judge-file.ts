/**
 * `judgment.json`, what `hexa judge` writes (docs/guides/judging.md, "hexa judge"): which judge scored which
 * episodes of which policy, every episode's F and score, the p10 / median / p90 picks by that score, and for each
 * pick the synthesis (the agreement rule's outcome, or the synthesiser's settlement), (code judge) its judgment
 * with the leaves and (vision judge) its judgment with the criteria. Schema version 2 adds the vision judge and
 * the synthesiser; a version 1 file (no vision judge) reads as it was written.
 */
import { z } from "zod";
import { Judgment } from "../judging/judgment.ts";
import { SynthesisRecord } from "../judging/synthesis.ts";
import { CriterionStatus } from "../judging/vision-verdict.ts";

const Unit = z.number().min(0).max(1);

export const JudgeUsed = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("code"), id: z.string(), version: z.number().int().min(1), hash: z.string(), label: z.string() }),
  z.strictObject({ kind: z.literal("fitness"), label: z.string(), solved: z.number(), base: z.number() }),
]);
export type JudgeUsed = z.infer<typeof JudgeUsed>;

const EpisodeScore = z.strictObject({
  seed: z.number().int().min(0),
  trajectory: z.string(),
  steps: z.number().int().min(1),
  fitness: z.number(),
  score: Unit,
  fault: z.string().optional(),
});
export type EpisodeScore = z.infer<typeof EpisodeScore>;

export const PICKS = ["p10", "median", "p90"] as const;
export type PickName = (typeof PICKS)[number];

/** What the vision judge was sent (judging/vision-judge.ts). */
const FramesSent = z.strictObject({
  frames: z.number().int().min(0),
  of: z.number().int().min(0),
  trail: z.number().int().min(0),
  video: z.boolean(),
  times: z.array(z.number()),
});

/** The vision judge's judgment of one episode (judging/vision-judge.ts VisionJudgment): a verdict, or a labelled failure. */
export const VisionRecord = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("verdict"),
    model: z.string(),
    score: Unit,
    criteria: z.array(z.strictObject({ criterion: z.string(), status: CriterionStatus, assessment: z.string() })),
    diagnosis: z.string(),
    failureTags: z.array(z.string()),
    criteriaSource: z.enum(["asked", "stored"]),
    reviewRounds: z.number().int().min(0),
    sent: FramesSent,
  }),
  z.strictObject({
    kind: z.literal("failure"),
    model: z.string(),
    stage: z.enum(["criteria", "verdict", "question"]),
    fault: z.enum(["answer", "endpoint"]),
    message: z.string(),
  }),
]);
export type VisionRecord = z.infer<typeof VisionRecord>;

/** The fitness judge alone (no model): its score stands, with F against the solved threshold stated. */
const FitnessAlone = z.strictObject({ kind: z.literal("single"), judge: z.literal("fitness"), score: Unit, passed: z.boolean(), rule: z.string() });

const PickedEpisode = z.strictObject({
  pick: z.enum(PICKS),
  seed: z.number().int().min(0),
  /** The score the picks were chosen by: the code judge's, else the fitness judge's. */
  score: Unit,
  /** The synthesis of the judges (judging/synthesis.ts), or the fitness judge alone. */
  synthesis: z.union([FitnessAlone, SynthesisRecord]),
  judgment: Judgment.optional(),
  /** The vision judge's judgment (schema version 2, with llm.vision). */
  vision: VisionRecord.optional(),
  frames: z.string().optional(),
});
export type PickedEpisode = z.infer<typeof PickedEpisode>;

/** The vision judge used (schema version 2): its model, whether the trail went too, and what the server takes. */
const VisionUsed = z.strictObject({
  model: z.string(),
  trail: z.boolean(),
  maxImages: z.number().int().min(1),
  video: z.boolean(),
  label: z.string(),
  /** The user's corrections the verdicts weighed (a p2p search's, as correctionsForJudges words them); absent: none. */
  corrections: z
    .string()
    .max(64 * 1024)
    .optional(),
});

/** The version hexa judge writes; version 1 files are read too. */
export const JUDGMENT_SCHEMA_VERSION = 2;

export const JudgmentFile = z.strictObject({
  schemaVersion: z.union([z.literal(1), z.literal(2)]),
  task: z.string(),
  policy: z.string(),
  /** The intent judged: the code judge's, else the vision judge's; null for the fitness judge alone. */
  intent: z.string().nullable(),
  judge: JudgeUsed,
  vision: VisionUsed.optional(),
  episodes: z.array(EpisodeScore).min(1),
  picks: z.array(PickedEpisode).length(3),
  notes: z.array(z.string()),
});
export type JudgmentFile = z.infer<typeof JudgmentFile>;
