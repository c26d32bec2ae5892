import { diffLines } from "diff";

/**
 * A line diff of two texts (jsdiff's Myers diff), for a reader comparing reward code with its parent's. Texts
 * past `MAX_LINES` lines get no diff (undefined): a reward function is far shorter, and a page stays quick.
 */

export interface DiffLine {
  op: "same" | "added" | "removed";
  text: string;
}

const MAX_LINES = 2000;

const linesOf = (value: string): string[] => value.replace(/\n$/, "").split("\n");

/** The lines of `b` against `a`: kept, added and removed, in order; undefined when a text is too long to diff. */
export const lineDiff = (a: string, b: string): DiffLine[] | undefined => {
  if (linesOf(a).length > MAX_LINES || linesOf(b).length > MAX_LINES) return undefined;
  // A missing final newline would make jsdiff see a last line as changed; both texts end in one here.
  return diffLines(`${a}\n`, `${b}\n`).flatMap((c) =>
    linesOf(c.value).map((text) => ({ op: c.added ? "added" : c.removed ? "removed" : "same", text }) as const),
  );
};
