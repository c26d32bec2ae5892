import type { ToolCall as LangchainToolCall } from "@langchain/core/messages";
import { createAgent, type AgentMiddleware } from "langchain";
import type { TaskEnv, ToolProgress } from "../src/family/task-env.ts";
import { portCallOf } from "../src/llm/agent-messages.ts";
import type { ChatModel, ToolCall } from "../src/llm/chat-model.ts";
import { langchainOf } from "../src/llm/openai-chat.ts";
import type { CompactionOptions } from "./context.ts";
import { EnvTool, unknownToolSpec } from "./env-tool.ts";
import type { EpisodeLedger } from "./episode-ledger.ts";
import { compactionMiddleware } from "./middleware/compaction.ts";
import { oneToolCallMiddleware } from "./middleware/one-tool-call.ts";
import { promptAdditionsMiddleware, type PromptAdditionsOptions } from "./middleware/prompt-additions.ts";
import { toolTurnMiddleware } from "./middleware/tool-turn.ts";
import { turnBudgetMiddleware } from "./middleware/turn-budget.ts";

export interface ActorAgentParts {
  env: TaskEnv;
  model: ChatModel;
  ledger: EpisodeLedger;
  /** The system prompt before the additions (agents/prompt.ts basePrompt). */
  basePrompt: string;
  additions: PromptAdditionsOptions;
  compaction: CompactionOptions;
  onToolProgress?: (p: ToolProgress) => void;
  /** A user's middleware, after hexa's: it sees each request as sent and each tool call as run. */
  extraMiddleware?: readonly AgentMiddleware[];
}

/** The answer's call behind langchain's, as recorded. */
const recordedCall =
  (ledger: EpisodeLedger) =>
  (lc: LangchainToolCall): ToolCall =>
    portCallOf(ledger.reply?.toolCalls ?? [], lc);

/** The call as run: arguments cut at the output cap are named as that, not as invalid JSON. */
const runCall =
  (ledger: EpisodeLedger) =>
  (lc: LangchainToolCall): ToolCall => {
    const call = recordedCall(ledger)(lc);
    const problem = ledger.reply?.problem;
    return call.argsError && problem ? { ...call, argsError: problem } : call;
  };

/**
 * hexa's rules as middleware, in the order their hooks nest (the first is outermost): the prompt additions before
 * compaction measures the request; every call counted outside everything that may fail; the tool turn recorded
 * outside the one-call note it reports (docs/ARCHITECTURE.md §5.1).
 */
const hexaMiddleware = (p: ActorAgentParts, toolFor: (name: string) => EnvTool) => [
  promptAdditionsMiddleware(p.additions),
  turnBudgetMiddleware(p.ledger),
  compactionMiddleware(p.ledger, p.compaction),
  toolTurnMiddleware(p.ledger, recordedCall(p.ledger), toolFor),
  oneToolCallMiddleware(),
];

/**
 * The actor as a langchain agent (`createAgent`, docs/spec/method.md §1.1): the role's model as its chat model,
 * the task's tools as its tools, hexa's rules and then the user's as its middleware. No checkpointer: the episode's
 * record is the ledger.
 */
export const createActorAgent = (p: ActorAgentParts) => {
  const run = runCall(p.ledger);
  const toolFor = (name: string) => new EnvTool(unknownToolSpec(name), p.env, run, p.onToolProgress);
  const tools = p.env.tools.map((spec) => new EnvTool(spec, p.env, run, p.onToolProgress));
  const middleware = [...hexaMiddleware(p, toolFor), ...(p.extraMiddleware ?? [])];
  const agent = createAgent({ model: langchainOf(p.model), tools, systemPrompt: p.basePrompt, middleware });
  return { agent, recursionLimit: recursionLimit(p.ledger.maxTurns, middleware.length) };
};

/**
 * langgraph's step limit for T turns: a turn passes each middleware's beforeModel and afterModel node, the model
 * node and the tool node; beforeAgent and afterAgent nodes run once. The budget, not this limit, ends an episode.
 */
const recursionLimit = (maxTurns: number, middleware: number): number => (maxTurns + 1) * (2 * middleware + 2) + 2 * middleware + 1;
