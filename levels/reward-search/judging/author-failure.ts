/** How a judge authoring ends when it cannot finish (docs/guides/judging.md, "Authoring a code judge"). */

/** The step an authoring was at: a failure is labelled with it. */
export type AuthoringStage = "intent" | "sample" | "decompose" | "implement" | "loophole review" | "store";

/** A step that ran out of tries or was refused: `authoring failed at <stage>: <detail>`. */
export class AuthoringStageFailed extends Error {
  constructor(
    readonly stage: AuthoringStage,
    readonly detail: string,
  ) {
    super(`authoring failed at ${stage}: ${detail}`);
    this.name = new.target.name;
  }
}
