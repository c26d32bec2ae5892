import type { RewardTask } from "./task.ts";

/**
 * The published tips that made Eureka's and RF-Agent's reward search work, in our words for JavaScript reward
 * code (docs/prompts.md, "The evolver and reward search" sets each beside its source). Shared by the actor's prompt and the
 * search proposer's, so every method reads the same advice.
 */

/** How the code receives the action: a discrete choice is its index (what the sandbox passes), a continuous one named fields. */
export const actionText = (task: Pick<RewardTask, "actionNames">, kind: "discrete" | "continuous"): string =>
  kind === "discrete"
    ? `action is the index of the chosen action, a number (${task.actionNames.map((n, i) => `${i} = ${n}`).join(", ")})`
    : `action is an object with the fields ${task.actionNames.join(", ")}`;

/** Tips for writing the code, each from its source. */
export const CODE_TIPS = [
  "Tips for writing the reward code:",
  // Eureka, eureka/utils/prompts/code_output_tip.txt (1); RF-Agent's code_output_tip.txt (1) adds the warning on bounds.
  "1. Normalise a term you transform to a fixed range (e.g. Math.exp(-distance / temperature) lies in (0, 1]) so that no term swamps the others by its units; do not clip the total to bounds that could hide the best behaviour.",
  // Eureka code_output_tip.txt (2).
  "2. Give every transformed term its own temperature: a named constant inside the function (const uprightTemperature = 0.1), never an input.",
  // RF-Agent, RF_Agent/utils/prompts_rfagent/code_output_tip.txt (3).
  "3. If the task has a goal state, add a bonus for reaching it (within a tolerance).",
  // RF-Agent code_output_tip.txt (5).
  "4. Do not combine contradictory terms (one rewarding what another punishes).",
  // Eureka code_output_tip.txt (4): only the environment's variables.
  "5. Read only the fields listed for obs, nextObs, info and action; there are no others.",
].join("\n");

/**
 * How to read a training's reflection: RF-Agent's trained_result_analysis_tip.txt as published, with F of the final
 * policy for its task_score, and two notes of ours (docs/prompts.md): the best checkpoint is not the score, and a
 * survival term acts through episode length.
 */
export const REFLECTION_TIPS = [
  "(1) F of the final policy reflects the agent's actual task score after training under the current reward function; the best checkpoint during training is shown for information and is not the score.",
  "(2) If the values for a certain reward component are near identical throughout, then this means RL is not able to optimize this component as it is written (a survival term, constant while the episode goes on, acts through episode length instead).",
  "(3) If some reward components' magnitude is significantly larger or smaller, its value may not conducive to policy learning.",
].join("\n");

/**
 * Eureka's refinement tips (eureka/utils/prompts/code_feedback.txt) as published, with F near the bottom of its range
 * for "success rates near zero", and the dominance tip sparing the term that tracks F (a survival term on a survival
 * task is meant to dominate; docs/prompts.md says why).
 */
export const refineTips = (task: Pick<RewardTask, "fitness">): string =>
  [
    "Please carefully analyze the policy feedback and provide a new, improved reward function that can better solve the task. Some helpful tips for analyzing the policy feedback:",
    `    (1) If F is always near the bottom of its range [${task.fitness.range.join(", ")}], then you must rewrite the entire reward function`,
    "    (2) If the values for a certain reward component are near identical throughout, then this means RL is not able to optimize this component as it is written. You may consider",
    "        (a) Changing its scale or the value of its temperature parameter",
    "        (b) Re-writing the reward component",
    "        (c) Discarding the reward component",
    "    (3) If some reward components' magnitude is significantly larger, then you must re-scale its value to a proper range, unless it is the term that tracks F",
    "Please analyze each existing reward component in the suggested manner above first, and then write the reward function code.",
  ].join("\n");
