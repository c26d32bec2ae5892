import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { InvariantError } from "../../src/errors.ts";
import { BudgetExceeded } from "../../src/llm/budget.ts";
import { answerOf } from "../../src/llm/agent-messages.ts";
import { ContextOverflow } from "../../src/llm/llm-error.ts";
import { latestAnswer } from "../agent-turns.ts";
import { answered, canContinue, EpisodeStateSchema, noCallTurn, type EpisodeRecord, type EpisodeRules, type EpisodeStop } from "../episode-state.ts";
import { rootCause } from "./root-cause.ts";

/**
 * A model call that failed for good ends the episode as a failed one (stopReason "error", or "context" for a
 * context the episode outgrew): the episode's outcome, not the run's. A spend cap is the run's to act on (it
 * stops cleanly and resumes), and a hexa bug is no outcome of an episode: both are thrown on.
 */
const failedCall = (episode: EpisodeRecord, e: unknown): Command => {
  const cause = rootCause(e);
  if (cause instanceof InvariantError || cause instanceof BudgetExceeded) throw e;
  const stop: EpisodeStop = { reason: cause instanceof ContextOverflow ? "context" : "error", success: false, action: null, error: (cause as Error).message };
  return new Command({ update: { episode: { ...episode, stop } } });
};

/**
 * Every model call counts as a turn (docs/spec/method.md §1.1): each answer is recorded in the agent's state with
 * its usage and cost; the agent stops before a call when the episode has ended or its T turns are spent; an
 * answer without a tool call is a failed turn whose nudge goes back to the model. langchain's jump to "model"
 * after such a turn skips beforeModel hooks, so the budget is checked there too (docs/ARCHITECTURE.md §5.1).
 * Outermost, so that a failure anywhere inside a model call is seen, and its state update made once.
 */
export const turnBudgetMiddleware = (rules: EpisodeRules) =>
  createMiddleware({
    name: "hexa-turn-budget",
    stateSchema: EpisodeStateSchema,
    beforeModel: {
      canJumpTo: ["end"],
      hook: (state) => (canContinue(state.episode, rules.maxTurns) ? undefined : { jumpTo: "end" as const }),
    },
    wrapModelCall: async (request, handler) => {
      let answer: Awaited<ReturnType<typeof handler>>;
      try {
        answer = await handler(request);
      } catch (e) {
        return failedCall(request.state.episode, e);
      }
      // A Command a middleware answered with is langchain's control flow, not a model's answer.
      if (!AIMessage.isInstance(answer)) return answer;
      const { episode } = request.state;
      return new Command({ update: { episode: answered(episode, answerOf(answer, episode.servedModel), rules) } });
    },
    afterModel: {
      canJumpTo: ["model", "end"],
      hook: (state) => {
        if (state.episode.stop) return { jumpTo: "end" as const };
        const last = state.messages.at(-1);
        if (AIMessage.isInstance(last) && (last.tool_calls?.length ?? 0) > 0) return undefined;
        const { read, episode } = noCallTurn(state.episode, latestAnswer(state.messages, state.episode.servedModel), rules);
        const messages = [new HumanMessage(read)];
        return canContinue(episode, rules.maxTurns) ? { messages, episode, jumpTo: "model" as const } : { messages, episode, jumpTo: "end" as const };
      },
    },
  });
