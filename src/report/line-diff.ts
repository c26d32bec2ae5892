/**
 * A line diff of two texts (longest common subsequence), for a reader comparing reward code side by side with
 * its parent. Quadratic in lines: texts whose line counts multiply past `MAX_CELLS` get no diff (undefined).
 */

export interface DiffLine {
  op: "same" | "added" | "removed";
  text: string;
}

/** 2,000 × 2,000 lines: far beyond a reward function, small enough to build a page in well under a second. */
const MAX_CELLS = 4_000_000;

/** The lines of `b` against `a`: kept, added and removed, in order; undefined when the texts are too long to diff. */
export const lineDiff = (a: string, b: string): DiffLine[] | undefined => {
  const x = a.split("\n");
  const y = b.split("\n");
  const n = x.length;
  const m = y.length;
  if (n * m > MAX_CELLS) return undefined;
  // lcs[i * (m + 1) + j]: the longest common subsequence of x[i..] and y[j..].
  const lcs = new Uint16Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i * (m + 1) + j] = x[i] === y[j] ? lcs[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(lcs[(i + 1) * (m + 1) + j]!, lcs[i * (m + 1) + j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      out.push({ op: "same", text: x[i++]! });
      j++;
    } else if (lcs[(i + 1) * (m + 1) + j]! >= lcs[i * (m + 1) + j + 1]!) out.push({ op: "removed", text: x[i++]! });
    else out.push({ op: "added", text: y[j++]! });
  }
  while (i < n) out.push({ op: "removed", text: x[i++]! });
  while (j < m) out.push({ op: "added", text: y[j++]! });
  return out;
};
