import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { Command, getCurrentTaskInput } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { InvariantError } from "../../src/errors.ts";
import { BudgetExceeded } from "../../src/llm/budget.ts";
import { answerOf } from "../../src/llm/agent-messages.ts";
import { ContextOverflow } from "../../src/llm/llm-error.ts";
import { answered, canContinue, noCallTurn, stopped, type EpisodeRecord, type EpisodeRules, type EpisodeStop } from "../episode-state.ts";
import { rootCause } from "./root-cause.ts";

/** The model node to run again: langchain's own name for it (its structured-output retry goes there the same way). */
const MODEL_NODE = "model_request";

/**
 * A model call that failed for good ends the episode as a failed one (stopReason "error", or "context" for a
 * context the episode outgrew): the episode's outcome, not the run's. A spend cap is the run's to act on (it
 * stops cleanly and resumes), and a hexa bug is no outcome of an episode: both are thrown on.
 */
const failedCall = (episode: EpisodeRecord, e: unknown): Command => {
  const cause = rootCause(e);
  if (cause instanceof InvariantError || cause instanceof BudgetExceeded) throw e;
  const stop: EpisodeStop = { reason: cause instanceof ContextOverflow ? "context" : "error", success: false, action: null, error: (cause as Error).message };
  return new Command({ update: { episode: stopped(episode, stop) } });
};

/**
 * The record as the model node was given it. langchain hands a middleware's wrapModelCall its stateSchema's
 * fields by parsing the state with a zod schema it builds anew on every call; the node's input has the record
 * as it is (declared by agents/middleware/tool-turn.ts).
 */
const episodeNow = (): EpisodeRecord => getCurrentTaskInput<{ episode: EpisodeRecord }>().episode;

/**
 * What follows an answer: the tool node when it made a call; else a failed turn whose nudge goes back to the
 * model (langchain routes an answer without a call to the end, so the model node is named), or the end when the
 * budget is spent.
 */
const afterAnswer = (answer: AIMessage, before: EpisodeRecord, rules: EpisodeRules): Command => {
  const episode = answered(before, answerOf(answer, before.servedModel), rules);
  if ((answer.tool_calls?.length ?? 0) > 0) return new Command({ update: { episode } });
  const turn = noCallTurn(episode, answerOf(answer, episode.servedModel), rules);
  const update = { messages: [new HumanMessage(turn.read)], episode: turn.episode };
  return canContinue(turn.episode, rules.maxTurns) ? new Command({ update, goto: MODEL_NODE }) : new Command({ update });
};

/**
 * Every model call counts as a turn (docs/spec/method.md §1.1): each answer is recorded in the agent's state with
 * its usage and cost; no call is made once the episode has ended or its T turns are spent (the graph then ends,
 * no answer being added); an answer without a tool call is a failed turn whose nudge goes back to the model. All
 * in the model node, so a turn passes no node of hexa's own beside the model and the tools (docs/ARCHITECTURE.md
 * §5.1). Outermost, so that a failure anywhere inside a model call is seen, and its state update made once.
 */
export const turnBudgetMiddleware = (rules: EpisodeRules) =>
  createMiddleware({
    name: "hexa-turn-budget",
    wrapModelCall: async (request, handler) => {
      const episode = episodeNow();
      if (!canContinue(episode, rules.maxTurns)) return new Command({ update: {} });
      let answer: Awaited<ReturnType<typeof handler>>;
      try {
        answer = await handler(request);
      } catch (e) {
        return failedCall(episode, e);
      }
      // A Command a middleware answered with is langchain's control flow, not a model's answer.
      return AIMessage.isInstance(answer) ? afterAnswer(answer, episode, rules) : answer;
    },
  });
