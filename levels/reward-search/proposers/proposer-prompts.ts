import type { CandidateView, FailedAttempt, Operator } from "../../../src/search/proposer.ts";
import { actionText, CODE_TIPS, REFLECTION_TIPS, refineTips } from "../reward-tips.ts";
import type { RewardTask, TaskInstance } from "../task.ts";
import type { RewardProposeContext } from "../search/evaluator.ts";

/**
 * The search proposer's prompts: Eureka's initial sample and refinement, RF-Agent's five expansion operators,
 * its re-debug, self-evaluation and thought alignment (docs/prompts.md, "The evolver and reward search" sets each beside the
 * reference's wording). Each operator's instruction follows RF-Agent's action_<k>_*.txt or Eureka's files,
 * credited where it is written.
 */

export const SYSTEM = "You design reward functions for reinforcement learning; each reward you write is trained with PPO and scored by the task's fitness F.";

/** The task as the proposer reads it; `actionKind` says how the code receives the action. */
export const taskText = (task: RewardTask, instance: TaskInstance, actionKind: "discrete" | "continuous") =>
  [
    `## The task: ${task.id} (seed ${instance.seed})`,
    task.description,
    `Fitness F: ${task.fitness.describe}; range [${task.fitness.range.join(", ")}]; solved at F ≥ ${task.fitness.solved}, measured with the final policy on evaluation seeds other than the training seed.`,
    "The reward is JavaScript: `function reward(obs, action, nextObs, info)` returning `{ total: number, components: { name: number, ... } }`.",
    `obs and nextObs have the fields ${task.observation.join(", ")}; info has ${task.info.join(", ")}; ${actionText(task, actionKind)}.`,
    "It runs sandboxed (no require, no I/O, a CPU limit per call); PPO maximises total; name each term in components.",
  ].join("\n");

const shown = (c: CandidateView, label: string) =>
  [
    `### ${label} (#${c.index}, F ${c.fitness === null ? "training failed" : c.fitness.toFixed(2)})`,
    `Thought: ${c.thought}`,
    "```js",
    c.code,
    "```",
    `Feedback:\n${c.feedback}`,
  ].join("\n");

/** The answer's shape: the design thought first, then the code (RF-Agent's thought_code_output.txt, as JSON). */
const answerText = (kind: Operator | "repair") =>
  kind === "refine"
    ? 'Answer with only a JSON object {"thought": "...", "code": "..."}: in the thought, first your analysis of each existing component, then the design (what the policy should do and how the reward gets it there); then the code that carries it out.'
    : 'Answer with only a JSON object {"thought": "...", "code": "..."}: write the design thought first (what the policy should do and how the reward gets it there), then the code that carries it out.';

/** Path reasoning's nodes oldest first, as RF-Agent shows them (rfagent_algo.py reverses the walk up the tree). */
const pathNodes = (ancestors: readonly CandidateView[]): string[] => {
  const oldestFirst = [...ancestors].reverse();
  return oldestFirst.map((a, i) => shown(a, i === oldestFirst.length - 1 ? `Step ${i + 1}, the newest` : `Step ${i + 1}${i === 0 ? ", the oldest" : ""}`));
};

/** The instruction of each operator, with the tips its source gave it; every proposal ends with the code tips. */
const instruction = (kind: Operator, ctx: RewardProposeContext): string[] => {
  const p = ctx.parent;
  const solved = ctx.task.fitness.solved;
  switch (kind) {
    case "initial":
      // Eureka initial_user.txt: "Write a reward function for the following task".
      return [`Write a reward function that will help PPO learn this task, to F ≥ ${solved}.`];
    case "refine":
      // Eureka code_feedback.txt: analyse the policy feedback with three tips, each component first.
      return [
        "Here is the best reward so far and the feedback of its training.",
        p ? shown(p, "Best reward so far") : "",
        ctx.feedback && ctx.feedback !== p?.feedback ? `Feedback:\n${ctx.feedback}` : "",
        refineTips(ctx.task),
      ];
    case "structural":
      // RF-Agent action_1_mutation_mechanism.txt.
      return [
        "Structural mutation: write a new reward function with a different form that can still be a modified version of this one: bring in a new idea, and add or remove basic components. It should reach a higher F.",
        p ? shown(p, "Reward") : "",
        REFLECTION_TIPS,
      ];
    case "parameter":
      // RF-Agent action_2_mutation_param.txt.
      return [
        "Parameter mutation: identify this reward's parameters (weights, scales, temperatures, thresholds) and write it with different settings of them, keeping its components. It should reach a higher F.",
        p ? shown(p, "Reward") : "",
        REFLECTION_TIPS,
      ];
    case "crossover": {
      // RF-Agent action_3_crossover_elite.txt.
      const elites = ctx.elites ?? (p ? [p] : []);
      return [
        `Crossover: below are ${elites.length} rewards with their design thoughts and the feedback of their trainings. List the ideas the high-scoring ones have in common, then combine the high-performing components of different rewards, judged by the feedback, into one new reward. It should reach a higher F.`,
        ...elites.map((e, i) => shown(e, `Elite ${i + 1}`)),
        REFLECTION_TIPS,
      ];
    }
    case "path": {
      // RF-Agent action_4_tree_reasoning.txt, nodes oldest first.
      const ancestors = ctx.ancestors ?? (p ? [p] : []);
      return [
        `Path reasoning: below are ${ancestors.length} rewards along one branch of the search, oldest first, each with the feedback of its training. Reason about the path: what changed from one to the next and how F moved; list the ideas that clearly helped. Then write the next reward along the path; it should reach a higher F than any of them.`,
        ...pathNodes(ancestors),
        REFLECTION_TIPS,
      ];
    }
    case "different":
      // RF-Agent action_5_different_thought.txt, its three advices.
      return [
        `Different thought: below is the current reward${ctx.others?.length ? " and rewards from other branches of the search" : ""}. Write a new reward function with a totally different form from ${ctx.others?.length ? "all of them" : "it"}: a different structure, flow or algorithm. For example, choose the observation fields most relevant to the task and replace the components built on others; stage the reward when the task has sub-goals (the next stage's terms only once the previous one is met); shape distances through nested functions (an exponential of a distance, a cosine similarity). The new reward should reach a higher F.`,
        p ? shown(p, "Current reward") : "",
        ...(ctx.others ?? []).map((o, i) => shown(o, `From another branch ${i + 1}`)),
        REFLECTION_TIPS,
      ];
  }
};

/** The body of a proposal prompt: the operator's instruction, the code tips, the answer's shape. */
export const operatorPrompt = (kind: Operator, ctx: RewardProposeContext): string =>
  [...instruction(kind, ctx), CODE_TIPS, answerText(kind)].filter((part) => part !== "").join("\n\n");

/** RF-Agent's re-debug prompt (initial_failed_feedback.txt): the code the check refused and its error; a fix, thought first. */
export const repairPrompt = (failed: FailedAttempt): string =>
  [
    "Your reward function failed its check before training (it was compiled and run on sampled transitions):",
    "```js",
    failed.code,
    "```",
    `Error:\n${failed.error}`,
    `Its design thought: ${failed.thought}`,
    "Fix the bug so that the reward compiles and runs; keep the design unless the error shows it cannot work.",
    "",
    answerText("repair"),
  ].join("\n");

/**
 * RF-Agent's self-evaluation prompt (self_node_value_verify_single.txt): the node's design thought and code; the
 * model first imagines how an expert-level policy completes the task, then scores how closely the reward's
 * behaviour matches that plan.
 */
export const selfEvaluationPrompt = (node: { thought: string; code: string }): string =>
  [
    "Keep the task's definition in mind. Here is a reward function with its design thought.",
    `Design thought: ${node.thought}`,
    "```js",
    node.code,
    "```",
    "First imagine how an expert-level policy completes this task and describe its plan and motion, step by step. Then judge how closely the behaviour this reward function leads to matches that plan, as a number from -1 (opposite) to 1 (exactly).",
    'Answer with only a JSON object {"expert_plan": "...", "score": <number in [-1, 1]>}, the plan first.',
  ].join("\n");

/** RF-Agent's thought alignment (initial_thought_alignment.txt): the thought re-written from the code, ≤ 4 sentences. */
export const alignPrompt = (code: string, thought: string): string =>
  [
    "Thought alignment: this reward trained successfully. Re-write its design thought so that it describes exactly what the code does, in at most 4 sentences: its components, the observations each is computed from, their parameters and how they are combined.",
    `Thought as written: ${thought}`,
    "```js",
    code,
    "```",
    'Answer with only a JSON object {"thought": "..."}.',
  ].join("\n");
