/**
 * Step 4 of authoring a code judge (docs/guides/judging.md, "Authoring a code judge"): an adversarial loophole
 * review of the validated code, at most `report.cap` rounds. A round that finds a loophole must return corrected
 * code, which is validated again (author-validate.ts) before it replaces the code; a correction that fails goes
 * back to the model within the same cap. The review ends at the first round that finds no loophole.
 */
import type { JudgeLimits } from "../sandbox/judge-sandbox.ts";
import { LoopholeReview } from "./author-answers.ts";
import type { AuthorConversation } from "./author-conversation.ts";
import type { RoundsReport } from "./author-decompose.ts";
import { loopholeReviewRequest, revalidateRequest } from "./author-prompts.ts";
import { type Sample, validateJudgeCode } from "./author-validate.ts";
import type { CriteriaTree } from "./criteria.ts";

/** The reviewed code: the last version that passed validation. */
export async function reviewLoopholes(
  c: AuthorConversation,
  input: { intent: string; tree: CriteriaTree; code: string; sample: Sample },
  report: RoundsReport,
  limits?: Partial<JudgeLimits>,
): Promise<string> {
  let code = input.code;
  let failed: string | null = null;
  for (let round = 1; round <= report.cap; round++) {
    const request = failed === null ? loopholeReviewRequest(input.intent, report.cap - round + 1) : revalidateRequest(failed);
    const review = await c.ask(`loophole review ${round}`, request, LoopholeReview);
    report.rounds = round;
    if (!review.loophole) {
      report.notes.push(`no loophole: ${review.findings}`);
      report.stopped = "the model found no loophole";
      return code;
    }
    failed = await validateJudgeCode(review.code!, input.tree, input.sample, limits);
    report.notes.push(
      `loophole: ${review.findings}${failed === null ? " (corrected code passed validation)" : ` (corrected code failed validation: ${failed})`}`,
    );
    if (failed === null) code = review.code!;
  }
  report.stopped = `${report.cap} rounds, each finding a loophole: the last corrected code that passed validation is kept`;
  return code;
}
