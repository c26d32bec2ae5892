import type { Message, ToolCall } from "../src/llm/chat-model.ts";

/** One turn as the actor saw it: the model's message and what went back to it. */
export interface Turn {
  thought: string;
  /** The executed call (only the first of several), or undefined when the model made none. */
  call: ToolCall | undefined;
  /** The tool's observation, or the nudge after a turn without a call. */
  reply: string;
  /** Scene information stays verbatim however old (get_level_state, describe_scene_geometry). */
  pinned: boolean;
}

export interface CompactionOptions {
  keepTurns: number;
  head: number;
  tail: number;
}

/** Head + tail of a long text, with how much was cut. */
export const cutMiddle = (text: string, head: number, tail: number): string => {
  if (text.length <= head + tail + 40) return text;
  return `${text.slice(0, head)} … [${text.length - head - tail} characters cut] … ${text.slice(text.length - tail)}`;
};

/**
 * The messages sent to the model: the system prompt and task, then every turn, the last `keepTurns` verbatim
 * and older observations cut to head + tail unless pinned (issue 4: context control).
 */
export const buildMessages = (system: string, task: string, turns: readonly Turn[], o: CompactionOptions): Message[] => {
  const messages: Message[] = [
    { role: "system", content: system },
    { role: "user", content: task },
  ];
  turns.forEach((t, i) => {
    const recent = i >= turns.length - o.keepTurns;
    const reply = recent || t.pinned ? t.reply : cutMiddle(t.reply, o.head, o.tail);
    if (t.call) {
      messages.push({ role: "assistant", content: t.thought, toolCalls: [t.call] });
      messages.push({ role: "tool", content: reply, toolCallId: t.call.id, name: t.call.name });
    } else {
      messages.push({ role: "assistant", content: t.thought, toolCalls: [] });
      messages.push({ role: "user", content: reply });
    }
  });
  return messages;
};
