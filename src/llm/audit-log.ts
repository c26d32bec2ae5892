import { appendFileSync } from "node:fs";
import { z } from "zod";
import { storedText } from "../util/cut-text.ts";
import { sha256Hex } from "../util/canonical-json.ts";
import type { Wire, Message, OutputRequest, ToolSpec } from "./chat-model.ts";
import { Role } from "./config.ts";
import { recordedMessages } from "./content-parts.ts";
import { ToolCallSchema, UsageSchema } from "./turn-schema.ts";

/** One line of the audit log: one model call, answered or failed. */
export const AuditLine = z.object({
  schemaVersion: z.literal(1),
  ts: z.iso.datetime(),
  role: Role,
  endpoint: z.string(),
  modelRequested: z.string(),
  /** The model the server reported; null when the call failed. */
  modelReported: z.string().nullable(),
  /** The messages as sent; absent in hash-only logs. */
  messages: z.array(z.unknown()).optional(),
  messagesSha256: z.string(),
  /** sha256 of the whole request (model, messages, tool specs, answer schema): what a replay matches (exchangeKey). */
  requestSha256: z.string().optional(),
  /** Where the full messages can be found (e.g. a trajectory and turn), from the caller. */
  messagesPointer: z.string().optional(),
  tools: z.array(z.string()),
  /** The name of the JSON schema the answer was asked for in, if any. */
  outputSchema: z.string().optional(),
  response: z.object({ text: z.string(), toolCalls: z.array(ToolCallSchema), reasoning: z.string().optional(), problem: z.string().optional() }).nullable(),
  usage: UsageSchema.nullable(),
  latencyMs: z.number().min(0),
  fromCache: z.boolean(),
  error: z.string().optional(),
});
export type AuditLine = z.infer<typeof AuditLine>;

export interface AuditOptions {
  /** Receives one JSON line (no newline) per call. */
  sink: (line: string) => void;
  role: Role;
  endpoint: string;
  /** Log the messages' sha256 (and the pointer) instead of their text. */
  hashOnly?: boolean;
  pointer?: () => string;
  /** Epoch ms; defaults to Date.now. */
  now?: () => number;
}

/** The key of one exchange as a replay looks it up: the request exactly as the role's model recorded it. */
export const exchangeKey = (model: string, messages: readonly Message[], tools: readonly ToolSpec[], output?: OutputRequest): string =>
  sha256Hex({ model, messages: recordedMessages(messages), tools, ...(output ? { output } : {}) });

/** Appends each line to a JSONL file; the file is this layer's own output, so its IO lives here. */
export const fileSink =
  (path: string) =>
  (line: string): void =>
    appendFileSync(path, `${line}\n`);

/**
 * Logs every call made through `inner`, including cache hits and failures; a failure is rethrown after logging.
 * An answer's text and each call's argument text are kept up to STORED_TEXT_CHARS, a longer one cut with a marker.
 */
export const withAudit = (inner: Wire, o: AuditOptions): Wire => {
  const now = o.now ?? Date.now;
  return {
    name: inner.name,
    invoke: async (messages, tools, output) => {
      const started = now();
      const request = {
        schemaVersion: 1 as const,
        ts: new Date(started).toISOString(),
        role: o.role,
        endpoint: o.endpoint,
        modelRequested: inner.name,
        // An image or a video is logged as its sha256, size and mime, never its bytes (content-parts.ts).
        ...(o.hashOnly ? {} : { messages: recordedMessages(messages) }),
        messagesSha256: sha256Hex(recordedMessages(messages)),
        requestSha256: exchangeKey(inner.name, messages, tools, output),
        ...(o.pointer ? { messagesPointer: o.pointer() } : {}),
        tools: tools.map((t) => t.name),
        ...(output ? { outputSchema: output.name } : {}),
      };
      const write = (line: AuditLine) => o.sink(JSON.stringify(line));
      try {
        const turn = await inner.invoke(messages, tools, output);
        write({
          ...request,
          modelReported: turn.model,
          response: {
            text: storedText(turn.text),
            toolCalls: turn.toolCalls.map((c) => ({ ...c, rawArgs: storedText(c.rawArgs) })),
            ...(turn.reasoning === undefined ? {} : { reasoning: storedText(turn.reasoning) }),
            ...(turn.problem === undefined ? {} : { problem: turn.problem }),
          },
          usage: turn.usage,
          latencyMs: turn.latencyMs,
          fromCache: turn.fromCache,
        });
        return turn;
      } catch (e) {
        write({
          ...request,
          modelReported: null,
          response: null,
          usage: null,
          latencyMs: now() - started,
          fromCache: false,
          error: e instanceof Error ? `${e.name}: ${e.message}` : String(e),
        });
        throw e;
      }
    },
  };
};
