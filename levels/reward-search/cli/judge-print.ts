/**
 * The text `hexa judge` prints (docs/guides/judging.md, "hexa judge"): the judge with its label, every episode,
 * then per pick each judge's score, the synthesis with its rule, the leaves with PASS / FAIL / SKIP and the vision
 * criteria with their verdicts.
 */
import { terminalLine } from "../../../src/util/terminal-text.ts";
import { breakdownLines } from "../judging/breakdown-text.ts";
import type { JudgmentFile, PickedEpisode, VisionRecord } from "./judge-file.ts";

const f3 = (x: number) => x.toFixed(3);
/** Model text on one line, control characters escaped (docs/security.md: a model's answer is untrusted). */
const oneLine = (s: string, max = 300) => terminalLine(s.length > max ? `${s.slice(0, max)}…` : s);

const visionLines = (v: VisionRecord): string[] => {
  if (v.kind === "failure") return [`vision judge (${v.model}) failed at ${v.stage} (${v.fault}): ${oneLine(v.message)}`];
  const sent = `${v.sent.frames} of ${v.sent.of} frames${v.sent.trail ? ` and ${v.sent.trail} trail frames` : ""}${v.sent.video ? " as video" : ""}`;
  return [
    `vision judge (${v.model}): score ${v.score.toFixed(1)} from ${sent}; criteria ${v.criteriaSource}`,
    ...v.criteria.map((c, i) => `  criterion ${i + 1} ${c.status.toUpperCase()}: ${oneLine(c.criterion)}: ${oneLine(c.assessment)}`),
    `  diagnosis: ${oneLine(v.diagnosis)}${v.failureTags.length ? ` [${v.failureTags.map((t) => oneLine(t, 60)).join(", ")}]` : ""}`,
  ];
};

const synthesisLines = (s: PickedEpisode["synthesis"]): string[] => {
  if (s.kind !== "settled") return [`agreement rule: ${s.rule.startsWith(`${s.kind}:`) ? "" : `${s.kind}: `}${s.rule}`];
  return [
    `synthesiser (${s.model}): settled, score ${f3(s.score)}, ${s.passed ? "passed" : "not passed"}, sided with ${s.sidedWith}: ${oneLine(s.rule)}`,
    ...s.toolCalls.map((c) => `  tool call ${c.name} (${c.status}) ${oneLine(c.args, 200)} → ${oneLine(c.result, 200)}`),
  ];
};

export const judgmentLines = (f: JudgmentFile): string[] => {
  const lines = [`${f.task}: ${f.episodes.length} episodes of ${f.policy} judged by the ${f.judge.label}${f.vision ? ` and the ${f.vision.label}` : ""}`];
  if (f.intent !== null) lines.push(`intent: ${JSON.stringify(f.intent)}`);
  for (const e of f.episodes)
    lines.push(`  seed ${e.seed}: score ${f3(e.score)} (${f.judge.kind} judge), F ${f3(e.fitness)}, ${e.steps} steps${e.fault ? `, fault ${e.fault}` : ""}`);
  for (const p of f.picks) {
    lines.push(`${p.pick}: seed ${p.seed}, score ${f3(p.score)} by the ${f.judge.label}`);
    for (const l of synthesisLines(p.synthesis)) lines.push(`  ${l}`);
    if (p.judgment) for (const l of breakdownLines(p.judgment)) lines.push(`  ${l}`);
    if (p.vision) for (const l of visionLines(p.vision)) lines.push(`  ${l}`);
    if (p.frames) lines.push(`  frames: ${p.frames}`);
  }
  for (const n of f.notes) lines.push(`note: ${n}`);
  return lines;
};
