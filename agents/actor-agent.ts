import { createAgent, type AgentMiddleware } from "langchain";
import type { TaskEnv, ToolProgress } from "../src/family/task-env.ts";
import type { RoleModel } from "../src/llm/ask.ts";
import type { CompactionOptions } from "./context.ts";
import { EnvTool, unknownToolSpec } from "./env-tool.ts";
import type { EpisodeRules } from "./episode-state.ts";
import { compactionMiddleware } from "./middleware/compaction.ts";
import { oneToolCallMiddleware } from "./middleware/one-tool-call.ts";
import { promptAdditionsMiddleware, type PromptAdditionsOptions } from "./middleware/prompt-additions.ts";
import { toolInputMiddleware } from "./middleware/tool-input.ts";
import { toolTurnMiddleware } from "./middleware/tool-turn.ts";
import { turnBudgetMiddleware } from "./middleware/turn-budget.ts";

export interface ActorAgentParts {
  env: TaskEnv;
  model: RoleModel;
  rules: EpisodeRules;
  /** The system prompt before the additions (agents/prompt.ts basePrompt). */
  basePrompt: string;
  additions: PromptAdditionsOptions;
  compaction: CompactionOptions;
  onToolProgress?: (p: ToolProgress) => void;
  /** A user's middleware, after hexa's: it sees each request as sent and each tool call as run. */
  extraMiddleware?: readonly AgentMiddleware[];
}

/**
 * hexa's rules as middleware, in the order their hooks nest (the first is outermost): every call counted outside
 * everything that may fail; the prompt additions before compaction measures the request; the tool turn recorded
 * outside the one-call note it reports, and the note added to any answer, a refused call's too (docs/ARCHITECTURE.md
 * §5.1).
 */
const hexaMiddleware = (p: ActorAgentParts, toolFor: (name: string) => EnvTool) => [
  turnBudgetMiddleware(p.rules),
  promptAdditionsMiddleware(p.additions),
  compactionMiddleware(p.compaction),
  toolTurnMiddleware(p.rules, toolFor),
  oneToolCallMiddleware(),
  toolInputMiddleware(),
];

/**
 * The actor as a langchain agent (`createAgent`, docs/spec/method.md §1.1): the role's model as its chat model,
 * the task's tools as its tools, hexa's rules and then the user's as its middleware. The episode's record is the
 * agent's state (agents/episode-state.ts); no checkpointer.
 */
export const createActorAgent = (p: ActorAgentParts) => {
  const toolFor = (name: string) => new EnvTool(unknownToolSpec(name), p.env, p.onToolProgress);
  const tools = p.env.tools.map((spec) => new EnvTool(spec, p.env, p.onToolProgress, p.env.parsed));
  const middleware = [...hexaMiddleware(p, toolFor), ...(p.extraMiddleware ?? [])];
  const agent = createAgent({ model: p.model, tools, systemPrompt: p.basePrompt, middleware });
  return { agent, recursionLimit: recursionLimit(p.rules.maxTurns, middleware.length) };
};

/**
 * langgraph's step limit for T turns: a turn passes each middleware's beforeModel and afterModel node, the model
 * node and the tool node; beforeAgent and afterAgent nodes run once. The budget, not this limit, ends an episode.
 */
const recursionLimit = (maxTurns: number, middleware: number): number => (maxTurns + 1) * (2 * middleware + 2) + 2 * middleware + 1;
