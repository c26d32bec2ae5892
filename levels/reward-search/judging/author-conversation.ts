/**
 * The judge author's one conversation with its model (docs/guides/judging.md, "Authoring a code judge"): every
 * step adds a request and the model's JSON answer, read as untrusted input (author-answers.ts). The history keeps
 * each answer's text only: a reasoning model's `<think>` blocks (which the model layer splits into `reasoning`, and
 * which are cut here again should a server leave them in the text) never reach a later request, so a review does
 * not see the reasoning that produced what it reviews.
 */
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { ModelOutputError } from "../../../src/errors.ts";
import { answerOf } from "../../../src/llm/agent-messages.ts";
import { type RoleModel, unusableAnswer } from "../../../src/llm/ask.ts";
import type { AssistantTurn } from "../../../src/llm/chat-model.ts";
import { answerSchema } from "../../../src/llm/structured-output.ts";
import { extractJson } from "../../../src/llm/structured-read.ts";
import { splitThink } from "../../../src/llm/think.ts";
import type { AnswerKind } from "./author-answers.ts";

/** The longest answer read, characters: a tree and 64 KiB of code fit with room. */
const MAX_ANSWER_CHARS = 160 * 1024;
/** Answers that are not usable JSON get this many more tries, the problem shown (not counted as review rounds). */
const FORMAT_RETRIES = 1;

/** One model call, as the authoring summary records it. */
export interface AuthoringCall {
  step: string;
  /** Why the answer could not be used, when it could not. */
  problem?: string;
  input: number;
  output: number;
}

/** The answer's text without reasoning: a forced tool's arguments, else the message text. */
const answerText = (turn: AssistantTurn): string => splitThink(turn.toolCalls[0]?.rawArgs ?? turn.text).text;

export class AuthorConversation {
  private readonly history: BaseMessage[];
  readonly calls: AuthoringCall[] = [];

  constructor(
    private readonly model: RoleModel,
    system: string,
  ) {
    this.history = [new SystemMessage(system)];
  }

  /** Ask `request`, read the answer as `kind`; an unusable answer is shown back once, then a ModelOutputError naming the step. */
  async ask<T>(step: string, request: string, kind: AnswerKind<T>): Promise<T> {
    this.history.push(new HumanMessage(request));
    const asked = this.model.withStructuredOutput(answerSchema(kind.wire), { name: kind.name, includeRaw: true });
    for (let attempt = 0; ; attempt++) {
      const { raw } = await asked.invoke([...this.history]);
      const turn = answerOf(raw as AIMessage, this.model.model);
      const text = answerText(turn);
      const read = readAnswer(turn, text, kind);
      this.calls.push({ step, input: turn.usage.input, output: turn.usage.output, ...(read.ok ? {} : { problem: read.problem }) });
      this.history.push(new AIMessage({ content: text.slice(0, MAX_ANSWER_CHARS), tool_calls: [] }));
      if (read.ok) return read.value;
      if (attempt >= FORMAT_RETRIES) throw new ModelOutputError(`${step}: the answer could not be used after ${attempt + 1} tries: ${read.problem}`);
      this.history.push(unusableAnswer(read.problem));
    }
  }
}

function readAnswer<T>(turn: AssistantTurn, text: string, kind: AnswerKind<T>): { ok: true; value: T } | { ok: false; problem: string } {
  try {
    if (turn.problem) throw new ModelOutputError(turn.problem);
    if (text.length > MAX_ANSWER_CHARS)
      throw new ModelOutputError(`the answer is ${text.length} characters, more than ${MAX_ANSWER_CHARS}; write a shorter answer`);
    return { ok: true, value: kind.read(extractJson(text)) };
  } catch (e) {
    if (e instanceof ModelOutputError) return { ok: false, problem: e.message };
    throw e;
  }
}
