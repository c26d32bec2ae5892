/**
 * Steps 1 and 2 of authoring a code judge (docs/guides/judging.md, "Authoring a code judge"): the intent
 * decomposed into a criteria tree (criteria.ts), then reviewed by the model at most `AUTHORING_CAPS.reviews` times,
 * stopping at the first review that says no change.
 */
import { DecomposeAnswer, DecompositionReview } from "./author-answers.ts";
import type { AuthorConversation } from "./author-conversation.ts";
import { decomposeRequest, decompositionReviewRequest } from "./author-prompts.ts";
import type { CriteriaTree } from "./criteria.ts";

/** Prompt-to-Policy's bounds: review rounds of the decomposition, implementation tries, loophole review rounds. */
export const AUTHORING_CAPS = { reviews: 5, tries: 5, loopholes: 5 } as const;

/** How a bounded loop of the protocol went. */
export interface RoundsReport {
  rounds: number;
  cap: number;
  stopped: string;
  /** What each round found (reviews) or what went wrong (tries), in order. */
  notes: string[];
}

export const newRounds = (cap: number): RoundsReport => ({ rounds: 0, cap, stopped: "not reached", notes: [] });

/** The reviewed decomposition; `report` is filled as the rounds go (a failure mid-way leaves it as far as it got). */
export async function decomposeIntent(c: AuthorConversation, intent: string, report: RoundsReport): Promise<CriteriaTree> {
  let tree = (await c.ask("decompose", decomposeRequest(intent), DecomposeAnswer)).criteria;
  for (let round = 1; round <= report.cap; round++) {
    const review = await c.ask(`decomposition review ${round}`, decompositionReviewRequest(intent, report.cap - round + 1), DecompositionReview);
    report.rounds = round;
    report.notes.push(review.findings);
    if (!review.change) {
      report.stopped = "the model said no change";
      return tree;
    }
    tree = review.criteria!;
  }
  report.stopped = `${report.cap} rounds, each with a change: the last revision is kept`;
  return tree;
}
