/**
 * A tree's score as lines a report prints: the score and the rules that applied to the whole, then each node
 * indented by depth with its score out of its share, and each leaf with PASS / FAIL / SKIP, its measured value,
 * tags and note. Text from the judge's code is shown with its control characters escaped.
 */
import { terminalLine } from "../../../src/util/terminal-text.ts";
import type { NodeScore, TreeScore } from "./tree-score.ts";

const n3 = (x: number) => x.toFixed(3);
/** A measured value: numbers to 4 significant digits, text with its control characters escaped. */
const valueText = (v: number | string | boolean): string => (typeof v === "number" ? String(Number(v.toPrecision(4))) : terminalLine(String(v)));

function nodeLine(n: NodeScore): string {
  const pad = "  ".repeat(n.depth - 1);
  const head = `${pad}${n.id} ${terminalLine(n.name)}`;
  const rule = n.rule ? ` — ${n.rule}` : "";
  if (!n.leaf) return `${head} (${n.order}) [${n3(n.contribution)}/${n3(n.share)}]${n.skipped ? " SKIP" : ""}${rule}`;
  const { status, mustKeep, result } = n.leaf;
  const value = result.value === null || status === "SKIP" ? "" : ` value ${valueText(result.value)}`;
  const tags = result.tags.length > 0 && status !== "SKIP" ? ` {${result.tags.join(", ")}}` : "";
  const note = result.note && status !== "SKIP" ? ` — ${terminalLine(result.note)}` : "";
  return `${head} ${status}${mustKeep ? " (must keep)" : ""} [${n3(n.contribution)}/${n3(n.share)}]${value}${tags}${rule}${note}`;
}

/** The printable breakdown of a scored tree. */
export function breakdownLines(s: TreeScore): string[] {
  const lines = [`score ${n3(s.score)} (top level ${s.order}${s.score !== s.sum ? `; ${n3(s.sum)} before the must-keep rule` : ""})`];
  for (const r of s.rules) lines.push(`  ${terminalLine(r)}`);
  for (const n of s.nodes) lines.push(nodeLine(n));
  for (const e of s.extras) lines.push(`ignored result ${e.id === null ? "(no id)" : terminalLine(e.id)}: ${e.note}`);
  return lines;
}
