import type { ModelConfig } from "./config.ts";

type Shaping = Pick<ModelConfig, "maxOutputTokens" | "maxTokensParam" | "extraBody">;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The request body as a role's config wants it, after langchain built it: the output cap under the field the
 * server reads (or none), `extraBody` added as given, and `content: null` (not "") on an assistant message that
 * only made tool calls (LiteLLM passes "" on to Anthropic, which rejects an empty text block).
 */
const shapeBody = (body: Record<string, unknown>, c: Shaping): Record<string, unknown> => {
  const out: Record<string, unknown> = { ...body };
  if (c.maxTokensParam) {
    delete out.max_tokens;
    delete out.max_completion_tokens;
    if (c.maxOutputTokens !== null) out[c.maxTokensParam] = c.maxOutputTokens;
  }
  if (Array.isArray(out.messages)) {
    out.messages = out.messages.map((m: unknown) =>
      isRecord(m) && m.role === "assistant" && m.content === "" && Array.isArray(m.tool_calls) && m.tool_calls.length > 0 ? { ...m, content: null } : m,
    );
  }
  return { ...out, ...c.extraBody };
};

/** The fetch init with its JSON body shaped; any other body passes unchanged. */
export const shapeRequest = (init: RequestInit | undefined, c: Shaping): RequestInit | undefined => {
  if (typeof init?.body !== "string") return init;
  let body: unknown;
  try {
    body = JSON.parse(init.body);
  } catch {
    return init;
  }
  return isRecord(body) ? { ...init, body: JSON.stringify(shapeBody(body, c)) } : init;
};
