import type { BaseMessage, ToolCall as LangchainToolCall } from "@langchain/core/messages";
import { StructuredTool } from "@langchain/core/tools";
import type { ToolRunnableConfig } from "@langchain/core/tools";
import type { TaskEnv, ToolProgress, ToolResult } from "../src/family/task-env.ts";
import { portCallOf } from "../src/llm/agent-messages.ts";
import type { ToolCall, ToolSpec } from "../src/llm/chat-model.ts";
import type { PortTool } from "../src/llm/openai-chat.ts";
import { latestAnswer } from "./agent-turns.ts";

/** What the tool node passes a tool besides langchain's config: the agent's state. */
type ToolNodeConfig = ToolRunnableConfig & { state?: { messages?: readonly BaseMessage[] } };

/**
 * The call as run, from the answer that made it in the agent's state: the port's call behind langchain's (its raw
 * text and parse error kept), its arguments cut at the output cap named as that, not as invalid JSON.
 */
const runCall = (lc: LangchainToolCall, messages: readonly BaseMessage[]): ToolCall => {
  const answer = latestAnswer(messages, "");
  const call = portCallOf(answer.toolCalls, lc);
  return call.argsError && answer.problem ? { ...call, argsError: answer.problem } : call;
};

/**
 * One of a task's tools as a langchain tool, run by the agent's tool node: `env.call` with the model's call as it
 * came (raw arguments and their parse error, which langchain's call cannot carry, read from the answer in the
 * agent's state). The family parses and answers a
 * bad call itself (docs/spec/style.md §13), so langchain validates nothing (an empty JSON schema), while the model
 * is sent the family's own spec (`portSpec`). The artifact is the family's whole ToolResult.
 */
export class EnvTool extends StructuredTool implements PortTool {
  readonly name: string;
  readonly description: string;
  readonly schema = {};
  override responseFormat = "content_and_artifact" as const;

  constructor(
    readonly portSpec: ToolSpec,
    private readonly env: TaskEnv,
    private readonly onProgress?: (p: ToolProgress) => void,
  ) {
    super();
    this.name = portSpec.name;
    this.description = portSpec.description;
  }

  protected async _call(_args: unknown, _run: unknown, config?: ToolNodeConfig): Promise<[string, ToolResult]> {
    const lc = config?.toolCall;
    const call = lc ? runCall(lc, config?.state?.messages ?? []) : undefined;
    const outcome: ToolResult = !call
      ? { ok: false, error: "no tool call", observation: `ERROR: ${this.name} was run without a tool call` }
      : call.argsError
        ? { ok: false, error: call.argsError, observation: `ERROR: ${call.argsError}` }
        : await this.env.call(call.name, call.args, this.onProgress);
    return [outcome.observation, outcome];
  }
}

/** A name the model called that the task has no tool for: the family's own answer to it (an error observation). */
export const unknownToolSpec = (name: string): ToolSpec => ({ name, description: "", parameters: {} });
