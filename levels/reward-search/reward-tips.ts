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

/** How to read a training's reflection: RF-Agent's trained_result_analysis_tip.txt, with F in place of its task score. */
export const REFLECTION_TIPS = [
  "How to read a training's feedback:",
  "- F of the final policy is the score; the best checkpoint is shown for information and is not the score.",
  "- A component whose values stay nearly the same throughout training is one the policy cannot change as written (a survival term, constant while the episode goes on, acts through episode length instead).",
  "- A component whose magnitude is far larger or smaller than the others' may keep them from mattering, or not matter itself.",
].join("\n");

/**
 * Eureka's refinement tips (eureka/utils/prompts/code_feedback.txt), with F's range in place of "success rate";
 * the dominance tip keeps the term that tracks F (a survival term on a survival task is meant to dominate).
 */
export const refineTips = (task: Pick<RewardTask, "fitness">): string =>
  [
    "Analyse the feedback, then write an improved reward:",
    `1. If F of the final policy stays near the bottom of its range [${task.fitness.range.join(", ")}] (the policy learned almost nothing), rewrite the whole reward function rather than tuning it.`,
    "2. If a component's values are nearly identical throughout training, PPO cannot optimise it as written: change its scale or its temperature, rewrite it, or drop it.",
    "3. If a component's magnitude is far larger than the others', rescale it to their range, unless it is the term that tracks F.",
    "Analyse each existing component this way first, in your thought, and then write the code.",
  ].join("\n");
