import { BaseChatModel, type BaseChatModelCallOptions, type BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { answerMessage, toPortMessages } from "./agent-messages.ts";
import type { ChatModel, ToolSpec } from "./chat-model.ts";
import { hasPortSpec } from "./openai-chat.ts";

export type { PortTool } from "./openai-chat.ts";

/** A bound tool as the port's spec: its own when it carries one, else langchain's OpenAI form of it. */
const specOf = (tool: BindToolsInput): ToolSpec => {
  if (hasPortSpec(tool)) return tool.portSpec;
  const { function: f } = convertToOpenAITool(tool);
  return { name: f.name, description: f.description ?? "", parameters: (f.parameters ?? {}) as Record<string, unknown> };
};

interface PortCallOptions extends BaseChatModelCallOptions {
  portTools?: ToolSpec[];
}

/**
 * A ChatModel port (metered, cached, audited, retried: src/llm/role-model.ts) as a langchain chat model, so that
 * a langchain agent (`createAgent`) drives it (docs/ARCHITECTURE.md §5.1). Every request goes through the port;
 * the answer comes back as an AIMessage that keeps the port's whole answer (src/llm/agent-messages.ts).
 */
export class PortChatModel extends BaseChatModel<PortCallOptions> {
  constructor(private readonly port: ChatModel) {
    super({});
  }

  _llmType(): string {
    return "hexa-port";
  }

  override bindTools(tools: BindToolsInput[]) {
    return this.withConfig({ portTools: tools.map(specOf) });
  }

  async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<ChatResult> {
    const turn = await this.port.invoke(toPortMessages(messages), options.portTools ?? []);
    return { generations: [{ text: turn.text, message: answerMessage(turn) }] };
  }
}
