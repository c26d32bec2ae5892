/**
 * The vision judge's answers as zod reads them (docs/guides/judging.md, "Vision judge"): bounded, and refused with
 * the field named, so that one retry can show the model what to fix.
 */
import { z } from "zod";

export const MIN_CRITERIA = 3;
const MAX_CRITERIA = 5;
const MAX_CRITERION_CHARS = 300;

const Criterion = z.string().trim().min(3, "a criterion is a sentence").max(MAX_CRITERION_CHARS);

/** Turn 1: the criteria, ordered by importance. */
export const CriteriaAnswer = z.object({ criteria: z.array(Criterion).min(MIN_CRITERIA).max(MAX_CRITERIA) });

/** A self-review round: approved as they are, or the whole revised list. */
export const ReviewAnswer = z
  .object({ approved: z.boolean(), criteria: z.array(Criterion).min(MIN_CRITERIA).max(MAX_CRITERIA).optional() })
  .refine((r) => r.approved || r.criteria !== undefined, { message: "not approved: give the whole revised list", path: ["criteria"] });

export const CriterionStatus = z.enum(["met", "partially_met", "not_met"]);
export type CriterionStatus = z.infer<typeof CriterionStatus>;

/** A score in [0, 1] that is a whole number of tenths. */
const Tenths = z
  .number()
  .min(0)
  .max(1)
  .refine((v) => Math.abs(v * 10 - Math.round(v * 10)) < 1e-6, "must be in steps of 0.1 (0.0, 0.1, …, 1.0)");

/** Turn 2, for the criteria given (each copied verbatim, in their order). */
export const verdictAnswer = (criteria: readonly string[]) =>
  z.object({
    criteria: z
      .array(
        z.object({
          criterion: z.string().max(MAX_CRITERION_CHARS + 50),
          assessment: z.string().trim().min(1).max(1500),
          status: CriterionStatus,
        }),
      )
      .length(criteria.length, `one entry per criterion, ${criteria.length} in all`)
      .superRefine((given, ctx) =>
        given.forEach((g, i) => {
          if (g.criterion.trim() !== criteria[i])
            ctx.addIssue({ code: "custom", path: [i, "criterion"], message: `must be criterion ${i + 1} copied exactly: ${JSON.stringify(criteria[i])}` });
        }),
      ),
    intent_score: Tenths,
    diagnosis: z.string().trim().min(1).max(2000),
    failure_tags: z.array(z.string().trim().min(1).max(80)).max(12),
  });

/** The answer to a question about a window of the episode. */
export const QuestionAnswer = z.object({ answer: z.string().trim().min(1).max(3000) });
