import { renderLessonsBlock } from "../../../agents/lessons-block.ts";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { CandidateView, FailedAttempt, Operator } from "../../../src/search/proposer.ts";
import { actionText, CODE_TIPS, REFLECTION_TIPS, refineTips } from "../reward-tips.ts";
import type { RewardTask, TaskInstance } from "../task.ts";
import type { RewardProposeContext } from "../search/evaluator.ts";

/**
 * The search proposer's requests: Eureka's initial sample and refinement, RF-Agent's five expansion operators,
 * its re-debug, self-evaluation and thought alignment, each in the published wording of its source file (credited
 * where it is written) and laid out in messages as the source sent them. What is not the published text is
 * listed with its reason in docs/prompts.md, "The evolver and reward search".
 */

/** Eureka's and RF-Agent's initial_system.txt without its TorchScript sentences (our code is JavaScript). */
const ENGINEER = [
  "You are a reward engineer trying to write reward functions to solve reinforcement learning tasks as effective as possible.",
  "Your goal is to write a reward function for the environment that will help the agent learn the task described in text.",
  "Your reward function should use useful variables from the environment as inputs.",
].join("\n");

/** The designer's system prompt: initial_system followed by the code tips, as both sources send it. */
const SYSTEM = `${ENGINEER}\n\n${CODE_TIPS}`;

/** RF-Agent's initial_system_verify.txt: the system prompt of its self-evaluation. */
const VERIFY_SYSTEM = [
  "You are a reward engineer trying to evaluate reward functions to solve reinforcement learning tasks as effective as possible.",
  "Your goal is to evaluate a reward function for the environment that will help the agent learn the task described in text.",
  "A good reward function should use useful variables from the environment as inputs.",
].join("\n");

/** The task as the proposer reads it (in place of the sources' environment code); `actionKind` says how the code receives the action. */
export const taskText = (task: RewardTask, instance: TaskInstance, actionKind: "discrete" | "continuous") =>
  [
    `## The task: ${task.id} (seed ${instance.seed})`,
    task.description,
    `Fitness F: ${task.fitness.describe}; range [${task.fitness.range.join(", ")}]; solved at F ≥ ${task.fitness.solved}, measured with the final policy on evaluation seeds other than the training seed.`,
    "The reward is JavaScript: `function reward(obs, action, nextObs, info)` returning `{ total: number, components: { name: number, ... } }`.",
    `obs and nextObs have the fields ${task.observation.join(", ")}; info has ${task.info.join(", ")}; ${actionText(task, actionKind)}.`,
    "It runs sandboxed (no require, no I/O, a CPU limit per call); PPO maximises total; name each term in components.",
  ].join("\n");

const code = (c: string) => ["```js", c, "```"].join("\n");

/** RF-Agent's policy_feedback.txt with F for "success rates" and our sampling for its epochs. */
const TRACKED_ONE =
  "We trained a RL policy using the provided reward function code and tracked the values of the individual components in the reward function as well as global policy metrics such as F and episode lengths over training:";
const TRACKED_MANY =
  "Additionally, we trained RL policy using the provided reward function code respectively and tracked the values of the individual components in the reward function as well as global policy metrics such as F and episode lengths over training.";

/** RF-Agent's base_thought_code.txt: one reward of a group, its design idea, code and trained result. */
const numbered = (c: CandidateView, label: string) =>
  [`${label}:`, `Design Idea: ${c.thought}`, `Code:\n${code(c.code)}`, `Trained result:\n${c.feedback}`].join("\n");

/** RF-Agent's thought_code_output.txt, answered as the JSON object our schema parses. */
const ANSWER = [
  "First, describe the design idea and main steps of your reward function in one sentence.",
  "Next, write a reward function based on this idea.",
  'Answer with only a JSON object {"thought": "<the design idea>", "code": "<the reward function>"}.',
].join("\n");

/** Eureka's refinement answers with its analysis before the code; ours puts the analysis in the thought. */
const REFINE_ANSWER =
  'Answer with only a JSON object {"thought": "<your analysis of each existing component, then the design>", "code": "<the reward function>"}.';

/** Eureka's initial_user.txt: the task itself is the section above the instruction. */
const INITIAL = `Write a reward function for the task above.\n\n${ANSWER}`;

/** RF-Agent's action_1 / action_2 header: one reward, its trained results, the analysis tips. */
const oneReward = (p: CandidateView | undefined): string =>
  p
    ? [
        "I have one reward function with its design idea and code as follows.",
        `Design Idea: ${p.thought}`,
        `Code:\n${code(p.code)}`,
        TRACKED_ONE,
        p.feedback,
        `Analysis tips for trained results:\n${REFLECTION_TIPS}`,
      ].join("\n")
    : "";

/** RF-Agent's action_3 / 4 / 5 header: a group of rewards, their trained results, the analysis tips. */
const group = (intro: string, nodes: readonly string[]): string =>
  [intro, TRACKED_MANY, "", nodes.join("\n\n"), `Analysis tips for trained results:\n${REFLECTION_TIPS}`].join("\n");

/** Path reasoning's nodes oldest first, as RF-Agent shows them (rfagent_algo.py reverses the walk up the tree). */
const pathNodes = (ancestors: readonly CandidateView[]): string[] => {
  const oldestFirst = [...ancestors].reverse();
  const end = (i: number) => (i === 0 ? " (the oldest)" : i === oldestFirst.length - 1 ? " (the newest)" : "");
  return oldestFirst.map((a, i) => numbered(a, `No.${i + 1} reward function${end(i)}`));
};

const DIFFERENT = [
  "Please create a new reward function that has a totally different form from the given algorithms. Try generating codes with different structures, flows or algorithms.",
  "Here are some advices may helpful:",
  "Select observation components that are more relevant to the task for reward calculation, adopting or replacing some components from the previous reward function;",
  "Design a hierarchical reward system (if it is necessary) where the agent first completes one subtask and then proceeds to the next;",
  "Use nested rewards, such as applying an exponential function the distance between two objects or using cosine similarity.",
  "",
  "Remember the new reward function should have a higher F.",
].join("\n");

/** A group as rfagent_algo.py builds it for crossover and different thought: the other nodes, then the parent last. */
const lastIsParent = (nodes: readonly CandidateView[], parent: CandidateView | undefined): CandidateView[] => [
  ...nodes.filter((n) => n.index !== parent?.index),
  ...(parent ? [parent] : []),
];

/** The body of an RF-Agent expansion: RF-Agent_1…5 (prompts_rfagent/action_<k>_*.txt), "task score" read as F. */
const expansion = (kind: Exclude<Operator, "initial" | "refine">, ctx: RewardProposeContext): string => {
  const p = ctx.parent;
  switch (kind) {
    case "structural":
      return `${oneReward(p)}\n\nPlease create a new reward function that has a different form but can be a modified version of the provided reward function. The new reward function should have a higher F. Try to introduce more novel idea and add or remove some basic reward components from the environment.`;
    case "parameter":
      return `${oneReward(p)}\n\nPlease identify the reward function parameters and create a new reward function that has a different parameter settings compared to the provided version. The new reward function should have a higher F.`;
    case "crossover": {
      const elites = lastIsParent(ctx.elites ?? [], p);
      const nodes = elites.map((e, i) => numbered(e, `No.${i + 1} reward function`));
      return `${group(`I have ${elites.length} existing reward functions with their design ideas and codes as follows.`, nodes)}\n\nPlease create a new reward function inspired by those reward functions. Try to list the common ideas in those high score reward functions and combine high-performing reward components from different reward functions based on the data tracked. The new reward function should have a higher F.`;
    }
    case "path": {
      const ancestors = ctx.ancestors ?? (p ? [p] : []);
      const intro = `I have ${ancestors.length} existing reward functions related to evolution in sequence with their design ideas and codes as follows.`;
      return `${group(intro, pathNodes(ancestors))}\n\nPlease create a new reward function inspired by all the above reward functions. Try to reason the evolution path and list some ideas in those reward functions that are clearly helpful to a better improvement. The new reward function should have a higher F than any of them.`;
    }
    case "different": {
      const nodes = lastIsParent(ctx.others ?? [], p);
      const shown = nodes.map((n, i) => numbered(n, `No.${i + 1} reward function`));
      return `${group(`I have ${nodes.length} existing reward functions with their design ideas and codes as follows.`, shown)}\n\n${DIFFERENT}`;
    }
  }
};

/**
 * Eureka's refinement turn as eureka.py sends it: the initial request, the best reward so far as the model's own
 * answer, then its reward reflection (policy_feedback.txt), code_feedback.txt's tips and code_output_tip.txt.
 */
const refineTurn = (ctx: RewardProposeContext, first: HumanMessage): BaseMessage[] => {
  const p = ctx.parent;
  const later = ctx.feedback && ctx.feedback !== p?.feedback ? [`Since then:\n${ctx.feedback}`] : [];
  const feedback = [TRACKED_ONE, p?.feedback ?? "(no trained reward yet)", ...later, "", refineTips(ctx.task), "", CODE_TIPS, "", REFINE_ANSWER].join("\n");
  const answer = p ? [new AIMessage({ content: JSON.stringify({ thought: p.thought, code: p.code }), tool_calls: [] })] : [];
  return [first, ...answer, new HumanMessage(feedback)];
};

/** The task followed by the lessons carried to it (docs/spec/method.md §3.1); the task alone when there are none. */
const withLessons = (task: string, ctx: RewardProposeContext): string => {
  const block = renderLessonsBlock(ctx.lessons ?? []);
  return block ? `${task}\n\n${block}` : task;
};

/** The messages of one proposal: the designer's system prompt, the task (with its lessons, if any) and the operator's request. */
export const proposalMessages = (kind: Operator, ctx: RewardProposeContext, taskOnly: string): BaseMessage[] => {
  const task = withLessons(taskOnly, ctx);
  const system = new SystemMessage(SYSTEM);
  const initial = new HumanMessage(`${task}\n\n${INITIAL}`);
  if (kind === "initial") return [system, initial];
  if (kind === "refine") return [system, ...refineTurn(ctx, initial)];
  return [system, new HumanMessage(`${task}\n\n${expansion(kind, ctx)}\n\n${ANSWER}`)];
};

/** RF-Agent's re-debug (initial_failed_feedback.txt): the code the check refused and its error; a fix, design idea first. */
export const repairMessages = (failed: FailedAttempt, task: string): BaseMessage[] => [
  new SystemMessage(SYSTEM),
  new HumanMessage(
    [
      task,
      "",
      `Your generated reward function is:\n${code(failed.code)}`,
      `Its design idea: ${failed.thought}`,
      `Meet execution error: ${failed.error}`,
      "",
      "Please fix the bug and provide a reward function to compile correctly.",
      ANSWER,
    ].join("\n"),
  ),
];

/**
 * RF-Agent's self-evaluation (self_node_value_verify_single.txt, under initial_system_verify.txt): the node's
 * design idea and code; the model imagines how an expert-level strategy completes the task, then scores how
 * similar the reward is to that plan.
 */
export const selfEvaluationMessages = (node: { thought: string; code: string }, task: string): BaseMessage[] => [
  new SystemMessage(VERIFY_SYSTEM),
  new HumanMessage(
    [
      task,
      "",
      "Be sure to remember the definition of the task. Additionally, I have an existing reward function with its design idea and code as follows.",
      "",
      `Design Idea: ${node.thought}`,
      `Code:\n${code(node.code)}`,
      "",
      "Now, based on the task definition, imagine how an expert-level strategy completes the task, describe the execution planning and motion process of the expert strategy for the task, and then evaluate the given reward functions according to your imagined description process, and judge the similarity of the given reward function with the imagined process, with the numerical value limited to [-1,1].",
      "",
      'Finally, answer with only a JSON object {"expert_plan": "<the expert strategy\'s planning and motion>", "score": <the similarity in [-1, 1]>}, the plan first.',
    ].join("\n"),
  ),
];

/** RF-Agent's thought alignment (initial_thought_alignment.txt, under initial_system.txt without the tips). */
export const alignMessages = (rewardCode: string, thought: string, task: string): BaseMessage[] => [
  new SystemMessage(ENGINEER),
  new HumanMessage(
    [
      task,
      "",
      "Following is the Design Idea of a reward function for the problem and the code for implementing the reward function.",
      `Design Idea: ${thought}`,
      `Code:\n${code(rewardCode)}`,
      "The content of the Design Idea cannot fully represent what the reward function has done informative. So, now you should re-describe the reward function using less than 4 sentences.",
      "Hint: You should reference the given Design Idea and highlight the most critical design ideas of the code. You can analyze the code to describe which reward components it contains, which observations they are calculated based on, what are the parameters and structure of the reward coupling process, and what special ideas are used.",
      'Answer with only a JSON object {"thought": "<the new description>"}.',
    ].join("\n"),
  ),
];
