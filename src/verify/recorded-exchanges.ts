import { existsSync, readFileSync } from "node:fs";
import { AuditLine } from "../llm/audit-log.ts";
import type { AssistantTurn } from "../llm/chat-model.ts";
import type { Role } from "../llm/config.ts";
import { STORED_TEXT_CHARS } from "../util/cut-text.ts";
import { CannotVerify } from "./outcome.ts";

/** One model exchange of a run as its llm-log.jsonl holds it, whole enough to be answered again. */
export interface RecordedExchange {
  /** 1-based line of the log. */
  line: number;
  role: Role;
  key: string;
  messages: unknown[];
  tools: string[];
  outputSchema?: string;
  /** The answer, or the failure the call ended in. */
  answer: { turn: AssistantTurn } | { error: string };
}

const CUT = /… \[\d+ characters cut\] …/;

/** Whether a stored text may be cut (cut-text.ts keeps the head and tail of a longer one). */
const wasCut = (text: string | undefined): boolean => text !== undefined && text.length >= STORED_TEXT_CHARS - 200 && CUT.test(text);

const exchangeOf = (path: string, line: number, l: AuditLine): RecordedExchange => {
  const where = `${path}:${line}`;
  if (l.messages === undefined)
    throw new CannotVerify(`${where}: messages: the log keeps only their sha256 (llm.auditHashOnly); a replay needs every request in full`);
  if (l.requestSha256 === undefined)
    throw new CannotVerify(
      `${where}: requestSha256: absent (the log was written by a hexa that did not record each request in full); this run cannot be replayed`,
    );
  const r = l.response;
  if (r && (wasCut(r.text) || wasCut(r.reasoning) || r.toolCalls.some((c) => wasCut(c.rawArgs))))
    throw new CannotVerify(`${where}: response: the answer was longer than the log keeps (${STORED_TEXT_CHARS} characters) and was stored cut`);
  const answer = r
    ? {
        turn: {
          text: r.text,
          toolCalls: r.toolCalls,
          ...(r.reasoning === undefined ? {} : { reasoning: r.reasoning }),
          ...(r.problem === undefined ? {} : { problem: r.problem }),
          usage: l.usage ?? { input: 0, output: 0, cached: 0 },
          model: l.modelReported ?? l.modelRequested,
          latencyMs: l.latencyMs,
          fromCache: l.fromCache,
        },
      }
    : { error: l.error ?? "the call failed (no detail recorded)" };
  return {
    line,
    role: l.role,
    key: l.requestSha256,
    messages: l.messages,
    tools: l.tools,
    ...(l.outputSchema === undefined ? {} : { outputSchema: l.outputSchema }),
    answer,
  };
};

/** Every exchange of a log, in order; a log that lacks what a replay needs is refused with the line and field. */
export const readExchanges = (path: string): RecordedExchange[] => {
  if (!existsSync(path)) throw new CannotVerify(`${path}: missing; the run's model exchanges were not recorded, so its answers cannot be replayed`);
  const lines = readFileSync(path, "utf8").split("\n");
  return lines.flatMap((text, i) => {
    if (text.trim() === "") return [];
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new CannotVerify(`${path}:${i + 1}: not valid JSON (${(e as Error).message})`);
    }
    const parsed = AuditLine.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new CannotVerify(`${path}:${i + 1}: ${issue.path.join(".") || "(line)"}: ${issue.message}`);
    }
    return [exchangeOf(path, i + 1, parsed.data)];
  });
};
