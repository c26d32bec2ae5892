import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { answerOf } from "../../src/llm/agent-messages.ts";
import { canContinue, recordAnswer, recordNoCall, type EpisodeLedger } from "../episode-ledger.ts";
import { rootCause } from "./root-cause.ts";

/**
 * Every model call counts as a turn (docs/spec/method.md §1.1): each answer is recorded with its usage and cost;
 * the agent stops before a call when the episode has ended or its T turns are spent; an answer without a tool
 * call is a failed turn whose nudge goes back to the model. langchain's jump to "model" after such a turn skips
 * beforeModel hooks, so the budget is checked there too (docs/ARCHITECTURE.md §5.1).
 */
export const turnBudgetMiddleware = (ledger: EpisodeLedger) =>
  createMiddleware({
    name: "hexa-turn-budget",
    beforeModel: {
      canJumpTo: ["end"],
      hook: () => (canContinue(ledger) ? undefined : { jumpTo: "end" as const }),
    },
    wrapModelCall: async (request, handler) => {
      let answer: Awaited<ReturnType<typeof handler>>;
      try {
        answer = await handler(request);
      } catch (e) {
        ledger.modelFailure = rootCause(e);
        throw e;
      }
      // A Command a middleware answered with is langchain's control flow, not a model's answer.
      if (AIMessage.isInstance(answer)) recordAnswer(ledger, answerOf(answer, ledger.model));
      return answer;
    },
    afterModel: {
      canJumpTo: ["model", "end"],
      hook: (state) => {
        const last = state.messages.at(-1);
        if (AIMessage.isInstance(last) && (last.tool_calls?.length ?? 0) > 0) return undefined;
        const nudge = recordNoCall(ledger);
        if (!canContinue(ledger)) return { jumpTo: "end" as const };
        return { messages: [new HumanMessage(nudge)], jumpTo: "model" as const };
      },
    },
  });
