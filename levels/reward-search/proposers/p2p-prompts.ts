import { renderLessonsBlock } from "../../../agents/lessons-block.ts";
import { type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { MAX_REWARD_CHANGES } from "../../../src/search/p2p-revision.ts";
import { MAX_TOOL_ROUNDS } from "./p2p-reviser-tools.ts";
import type { HpDirective, HpSet, HpSpace, IterationView, ReviseContext } from "../../../src/search/p2p-ports.ts";
import { CODE_TIPS } from "../reward-tips.ts";
import { hpText, n } from "./p2p-text.ts";
import type { RewardTask, TaskInstance } from "../task.ts";

/**
 * The p2p reviser's requests (docs/spec/reward-search.md §8.6): hexa's own wording of Prompt-to-Policy's revision
 * agent — its inputs (current and best code, the checkpoint table, guardrails, PPO diagnostics with the HP rules,
 * a short history, the lessons, the user's corrections) and its rules (1–2 changes, a structural rewrite after a
 * plateau, "no change" allowed, HP changes within bounds, every correction addressed) — and the HP variants asked
 * with one directive each.
 */

const SYSTEM = [
  "You revise a reward function and PPO hyper-parameters together, one iteration at a time, to make a trained policy do the task.",
  `Rules: make 1–${MAX_REWARD_CHANGES} planned reward changes per iteration so their effect can be told apart; you may answer "no change" (noChange true, keeping the code of the iteration you build on) when the evidence says the reward is right and only the training needs changing.`,
  "You may build on any earlier iteration (basedOn): its code and its hyper-parameters are restored; revert to the best after a regression.",
  "Change hyper-parameters only within their bounds, writing each change as [current value, new value].",
  `Before answering you may read this search's lineage with the tools (any iteration's code, the diff of two, checkpoints and judgments, one training's dynamics, configurations, the lessons), for at most ${MAX_TOOL_ROUNDS} rounds of tool calls. A lesson's tier changes only through set_lesson_tier, with the evidence as its reason: raise one the results confirm, lower or retire one they contradict. Then answer with the JSON object alone.`,
  CODE_TIPS,
].join("\n\n");

const boundsText = (s: HpSpace) =>
  Object.entries(s.bounds)
    .map(([k, [lo, hi]]) => `${k} [${lo}, ${hi}]`)
    .join(", ");
const iterationText = (v: IterationView) =>
  `iteration ${v.iteration}${v.parent === null ? "" : ` (based on ${v.parent})`}: score ${n(v.score)}; ${v.changes}; HPs ${hpText(v.hp)}`;

const tableText = (ctx: ReviseContext<RewardTask, TaskInstance>): string =>
  [
    "| config | checkpoint | mean | std | success rate |",
    "|---|---|---|---|---|",
    ...ctx.table.map((r) => `| ${r.config} | ${Math.round(r.fraction * 100)} % | ${n(r.mean)} | ${n(r.std)} | ${n(r.successRate)} |`),
  ].join("\n");

const diagnosticsText = (ctx: ReviseContext<RewardTask, TaskInstance>): string =>
  ctx.configs
    .map((c) => {
      const d = c.diagnostics;
      const stats = d
        ? `approx KL ${n(d.approxKl)}, clip fraction ${n(d.clipFrac)}, entropy ${n(d.entropy)}, explained variance ${n(d.explainedVariance)}`
        : "not reported";
      return `config ${c.config} (${hpText(c.hp)}): ${stats}`;
    })
    .join("\n");

/** The plateau warning: shown when no new best came for the plateau's iterations; it lifts the change limit and requires a structural rewrite. */
export const plateauWarning = (since: number) =>
  `WARNING — plateau: no new best for ${since} iteration${since === 1 ? "" : "s"}. Small changes have stopped helping: rewrite the reward's structure (structural true: new terms, a new form, a different way to measure progress), with as many changes as that takes.`;

/** The user's corrections this revision must address, each with its index and the iteration it came after. */
const correctionsText = (ctx: ReviseContext<RewardTask, TaskInstance>): string =>
  [
    "## Corrections from the user (address every one)",
    "The user watched the results and asked for these changes. Each overrides earlier guidance where they conflict; say in `corrections` how this revision addresses each (a change to the reward or its weights, a hyper-parameter, or why the evidence says it is already met).",
    ...ctx.corrections.map(
      (c) => `- correction ${c.index}${c.afterIteration === null ? "" : ` (after iteration ${c.afterIteration})`}: ${JSON.stringify(c.text)}`,
    ),
  ].join("\n");

const ANSWER =
  "diagnosis, lesson (one sentence for later iterations), basedOn, rewardChanges, structural, noChange, code (the whole reward; repeat the base code when noChange), hpChanges";

export const revisionMessages = (ctx: ReviseContext<RewardTask, TaskInstance>, task: string): BaseMessage[] => {
  const lessons = renderLessonsBlock(ctx.lessons);
  const sections = [
    task,
    `## Current: ${iterationText(ctx.current)}\n\`\`\`js\n${ctx.current.code}\n\`\`\``,
    ctx.best.iteration === ctx.current.iteration ? "## Best: the current iteration" : `## Best: ${iterationText(ctx.best)}\n\`\`\`js\n${ctx.best.code}\n\`\`\``,
    `## Checkpoints of the current iteration (judged score 0–1 per configuration, over its seeds; the best configuration is ${ctx.bestConfig})\n${tableText(ctx)}`,
    `## Training feedback of the best configuration\n${ctx.feedback}`,
    `## PPO diagnostics (last quarter of training)\n${diagnosticsText(ctx)}\nHP rules: approx KL > 0.02 → halve the learning rate; clip fraction > 0.3 → lower it; entropy collapsing → raise entCoef; explained variance < 0 → raise vfCoef.${ctx.hpHints.length ? `\nFiring now: ${ctx.hpHints.join("; ")}.` : ""}`,
    `## Guardrails\n${ctx.guardrails.length ? ctx.guardrails.map((g) => `- ${g}`).join("\n") : "none fired"}`,
    `## History\n${ctx.history.map(iterationText).join("\n")}`,
    ...(lessons ? [lessons] : []),
    `## Hyper-parameters you may change, with bounds\n${boundsText(ctx.space)}`,
    ...(ctx.corrections.length ? [correctionsText(ctx)] : []),
    ...(ctx.plateau ? [plateauWarning(ctx.sinceBest)] : []),
    ctx.corrections.length
      ? `Plan iteration ${ctx.iteration}. Answer in JSON: ${ANSWER}, corrections ([{"correction": index, "how": "how this revision addresses it"}], one per correction above).`
      : `Plan iteration ${ctx.iteration}. Answer in JSON: ${ANSWER}.`,
  ];
  return [new SystemMessage(SYSTEM), new HumanMessage(sections.join("\n\n"))];
};

const DIRECTIVE_TEXT: Record<HpDirective, string> = {
  different: "try a different region of the settings than the base",
  conservative: "make training more stable and careful than the base",
  aggressive: "make training faster and bolder than the base",
  balanced: "strike a balance between stability and speed",
};

export const variantMessages = (o: { hp: HpSet; space: HpSpace; hpHints: readonly string[] }, d: HpDirective): BaseMessage[] => [
  new SystemMessage("You propose PPO hyper-parameter variants of a base configuration."),
  new HumanMessage(
    [
      `Base configuration: ${hpText(o.hp)}.`,
      `Bounds: ${boundsText(o.space)}.`,
      ...(o.hpHints.length ? [`HP rules firing on the last training: ${o.hpHints.join("; ")}.`] : []),
      `Directive: ${d} — ${DIRECTIVE_TEXT[d]}. Change 1–2 settings within their bounds.`,
      'Answer in JSON: {"hpChanges": {"name": [current value, new value]}}.',
    ].join("\n"),
  ),
];
