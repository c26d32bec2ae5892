/**
 * `judgment.json`, what `hexa judge` writes (docs/guides/judging.md, "hexa judge"): which judge scored which
 * episodes of which policy, every episode's F and score, the p10 / median / p90 picks by that score, and for each
 * pick the agreement rule's outcome and (code judge) its judgment with the leaves.
 */
import { z } from "zod";
import { Judgment } from "../judging/judgment.ts";

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

const PickedEpisode = z.strictObject({
  pick: z.enum(PICKS),
  seed: z.number().int().min(0),
  score: Unit,
  synthesis: z.strictObject({ kind: z.literal("single"), judge: z.enum(["code", "fitness"]), score: Unit, passed: z.boolean(), rule: z.string() }),
  judgment: Judgment.optional(),
  frames: z.string().optional(),
});
export type PickedEpisode = z.infer<typeof PickedEpisode>;

export const JudgmentFile = z.strictObject({
  schemaVersion: z.literal(1),
  task: z.string(),
  policy: z.string(),
  intent: z.string().nullable(),
  judge: JudgeUsed,
  episodes: z.array(EpisodeScore).min(1),
  picks: z.array(PickedEpisode).length(3),
  notes: z.array(z.string()),
});
export type JudgmentFile = z.infer<typeof JudgmentFile>;
