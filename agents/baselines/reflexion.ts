import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { runActorEpisode, type EpisodePorts, type EpisodeSpec } from "../actor.ts";
import type { FamilyWords } from "../../src/family/family-words.ts";
import { REFLEXION } from "../episode-budget.ts";
import { renderSteps } from "../evolver-trajectory.ts";
import { ask } from "../../src/llm/ask.ts";
import { BudgetExceeded } from "../../src/llm/budget.ts";
import { callUsage, countedTurns, NO_USAGE, sumUsage, type Trajectory } from "../../src/store/trajectory.ts";

const reflectPrompt = (words: FamilyWords) =>
  `You failed a ${words.task} attempt. Write a reflection of at most ${REFLEXION.maxSentences} sentences: what you tried, the concrete ` +
  `${words.cause} it failed, and one next action to try. No preamble.`;

/** At most `n` sentences of the model's reflection. */
export const firstSentences = (text: string, n: number): string =>
  (
    text
      .replace(/\s+/g, " ")
      .trim()
      .match(/[\s\S]*?[.!?](?=\s|$)|[\s\S]+$/g) ?? []
  )
    .slice(0, n)
    .join("")
    .trim();

/**
 * The failed trial as the evolver reads a trajectory (agents/evolver-trajectory.ts): every step in the order it
 * happened, each observation reduced to the family's outcome lines (a rollout's outcome and the goal objects' final
 * states), so no reflection misses what a 300-character cut of an observation dropped.
 */
const summary = (t: Trajectory, words: FamilyWords): string =>
  [
    `Level ${t.level} seed ${t.seed}; result: failure after ${t.steps.length} turns.`,
    `final action: ${t.action === null || t.action === undefined ? "none" : words.renderAction(t.action)}`,
    ...renderSteps(t.level, t.steps, words),
  ].join("\n");

export const runReflexion = async (
  spec: Omit<EpisodeSpec, "agent" | "skillPrefix" | "reflections">,
  ports: EpisodePorts,
  words: FamilyWords,
): Promise<Trajectory> => {
  const started = ports.now();
  const reflections: string[] = [];
  let reflectionError: string | undefined;
  const trials: Trajectory[] = [];
  let reflectionUsage = NO_USAGE;
  for (let k = 0; k < REFLEXION.trials; k++) {
    const trial = await runActorEpisode(
      { ...spec, config: { ...spec.config, maxTurns: REFLEXION.turnsPerTrial }, agent: "reflexion", reflections: reflections.slice(-REFLEXION.maxReflections) },
      ports,
    );
    trials.push(trial);
    if (trial.success || trial.stopReason === "error" || k === REFLEXION.trials - 1) break;
    try {
      const { turn: r } = await ask(ports.model, [new SystemMessage(reflectPrompt(words)), new HumanMessage(summary(trial, words))]);
      reflectionUsage = sumUsage(reflectionUsage, callUsage(r.usage, ports.costOf(r)));
      const text = firstSentences(r.text, REFLEXION.maxSentences);
      if (text) reflections.push(text);
    } catch (e) {
      if (e instanceof BudgetExceeded) throw e;
      reflectionError = `the reflection call failed: ${(e as Error).message}`;
      break;
    }
  }
  const last = trials.at(-1)!;
  let turn = 0;
  const steps = trials.flatMap((t) => t.steps.map((s) => ({ ...s, turn: ++turn })));
  const budget = REFLEXION.trials * REFLEXION.turnsPerTrial;

  return {
    ...last,
    agent: "reflexion",
    steps,
    maxTurns: budget,
    turns: countedTurns(last.success, steps.length, budget),
    usage: trials.map((t) => t.usage).reduce(sumUsage, reflectionUsage),
    wallMs: ports.now() - started,
    ...(reflectionError ? { stopReason: "error" as const, error: reflectionError } : {}),
  };
};
