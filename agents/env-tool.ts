import type { BaseMessage, ToolCall as LangchainToolCall } from "@langchain/core/messages";
import { StructuredTool } from "@langchain/core/tools";
import type { ToolRunnableConfig } from "@langchain/core/tools";
import type { z } from "zod";
import type { ParsedCalls, TaskEnv, ToolProgress, ToolResult } from "../src/family/task-env.ts";
import { recordedCallOf } from "../src/llm/agent-messages.ts";
import type { ToolCall, ToolSpec } from "../src/llm/chat-model.ts";
import type { SpecTool } from "../src/llm/openai-chat.ts";
import { latestAnswer } from "./agent-turns.ts";

/** What the tool node passes a tool besides langchain's config: the agent's state. */
type ToolNodeConfig = ToolRunnableConfig & { state?: { messages?: readonly BaseMessage[] } };

/**
 * The call as run, from the answer that made it in the agent's state: the recorded call behind langchain's (its raw
 * text and parse error kept), its arguments cut at the output cap named as that, not as invalid JSON.
 */
export const runCall = (lc: LangchainToolCall, messages: readonly BaseMessage[]): ToolCall => {
  const answer = latestAnswer(messages, "");
  const call = recordedCallOf(answer.toolCalls, lc);
  return call.argsError && answer.problem ? { ...call, argsError: answer.problem } : call;
};

/**
 * One of a task's tools as a langchain tool, run by the agent's tool node; the model is sent the family's own spec
 * (`toolSpec`) and the artifact is the family's whole ToolResult. Where the family declares the tool in zod
 * (`TaskEnv.parsed`), langchain parses the call with that schema and the family runs the parsed arguments: one
 * parse (agents/middleware/tool-input.ts answers a call the schema refuses). Otherwise (`asMade`, and a name the
 * task lacks) the schema is empty and the family gets the call as the model made it (raw arguments and their parse
 * error, which langchain's call cannot carry, read from the answer in the agent's state), which it parses and
 * answers itself (docs/spec/style.md §13).
 */
export class EnvTool extends StructuredTool implements SpecTool {
  readonly name: string;
  readonly description: string;
  readonly schema: z.ZodType | Record<string, never>;
  override responseFormat = "content_and_artifact" as const;
  private readonly input: z.ZodType | undefined;

  constructor(
    readonly toolSpec: ToolSpec,
    private readonly env: TaskEnv,
    private readonly onProgress?: (p: ToolProgress) => void,
    private readonly parsed?: ParsedCalls,
  ) {
    super();
    this.name = toolSpec.name;
    this.description = toolSpec.description;
    this.input = parsed?.inputs[toolSpec.name];
    this.schema = this.input ?? {};
  }

  /** Whether langchain parses this tool's calls with the family's schema. */
  get parses(): boolean {
    return this.input !== undefined;
  }

  /** The same tool taking the call as the model made it: the family parses it, and answers a bad one. */
  asMade(): EnvTool {
    return new EnvTool(this.toolSpec, this.env, this.onProgress);
  }

  /** The family's answer to the call as the model made it. */
  answerAsMade(call: ToolCall): Promise<ToolResult> {
    return call.argsError
      ? Promise.resolve({ ok: false, error: call.argsError, observation: `ERROR: ${call.argsError}` })
      : this.env.call(call.name, call.args, this.onProgress);
  }

  protected async _call(args: unknown, _run: unknown, config?: ToolNodeConfig): Promise<[string, ToolResult]> {
    const lc = config?.toolCall;
    const outcome: ToolResult =
      this.parsed && this.input
        ? await this.parsed.call(this.name, args, this.onProgress)
        : lc
          ? await this.answerAsMade(runCall(lc, config?.state?.messages ?? []))
          : { ok: false, error: "no tool call", observation: `ERROR: ${this.name} was run without a tool call` };
    return [outcome.observation, outcome];
  }
}

/** A name the model called that the task has no tool for: the family's own answer to it (an error observation). */
export const unknownToolSpec = (name: string): ToolSpec => ({ name, description: "", parameters: {} });
