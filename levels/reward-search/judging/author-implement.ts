/**
 * Step 3 of authoring a code judge (docs/guides/judging.md, "Authoring a code judge"): the leaves' measurement
 * code, validated on a real recorded episode (author-validate.ts); each failure goes back to the model, at most
 * `report.cap` tries in all.
 */
import { ModelOutputError } from "../../../src/errors.ts";
import type { JudgeLimits } from "../sandbox/judge-sandbox.ts";
import { ImplementAnswer } from "./author-answers.ts";
import { AuthoringStageFailed } from "./author-failure.ts";
import type { AuthorConversation } from "./author-conversation.ts";
import type { RoundsReport } from "./author-decompose.ts";
import { fixRequest, implementRequest } from "./author-prompts.ts";
import { type Sample, validateJudgeCode } from "./author-validate.ts";
import type { CriteriaTree } from "./criteria.ts";

const MAX_ERROR_SHOWN = 300;

/** Code that passed validation on `sample`, or AuthoringStageFailed after `report.cap` tries. */
export async function implementLeaves(
  c: AuthorConversation,
  tree: CriteriaTree,
  sample: Sample,
  report: RoundsReport,
  limits?: Partial<JudgeLimits>,
): Promise<string> {
  let error: string | null = null;
  for (let attempt = 1; attempt <= report.cap; attempt++) {
    report.rounds = attempt;
    const request = error === null ? implementRequest() : fixRequest(error);
    try {
      const { code } = await c.ask(`implement ${attempt}`, request, ImplementAnswer);
      error = await validateJudgeCode(code, tree, sample, limits);
      if (error === null) {
        report.stopped = `passed validation on try ${attempt}`;
        return code;
      }
    } catch (e) {
      if (!(e instanceof ModelOutputError)) throw e;
      error = e.message;
    }
    report.notes.push(error);
  }
  report.stopped = `${report.cap} tries without code that passes validation`;
  throw new AuthoringStageFailed("implement", `${report.cap} tries, last error ${error!.slice(0, MAX_ERROR_SHOWN)}`);
}
