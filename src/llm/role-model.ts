import { withAudit, fileSink } from "./audit-log.ts";
import { withBudget, type SpendGate } from "./budget.ts";
import type { ChatModel } from "./chat-model.ts";
import { resolveModelConfig, type Env, type LlmConfig, type Role } from "./config.ts";
import { bareParts, HexaChatOpenAI, portOf } from "./openai-chat.ts";
import type { OpenAIChatDeps } from "./openai-client.ts";
import { dirCache, withCache } from "./response-cache.ts";

export interface RoleModelDeps extends Omit<OpenAIChatDeps, "where"> {
  /** Where OPENAI_API_KEY / OPENAI_BASE_URL come from; the CLI passes process.env. */
  env: Env;
  /** Overrides `llm.auditLog` (tests pass an array's push). */
  auditSink?: (line: string) => void;
  /** Where the messages of the current call are kept, for hash-only audit lines. */
  pointer?: () => string;
  /** The run's spend cap, shared by its roles; asked only for calls that reach the endpoint. */
  gate?: SpendGate;
}

/**
 * A role's model as the run uses it (src/llm/openai-chat.ts): around each exchange with the endpoint, the spend
 * gate, then the response cache (a hit skips the endpoint and the gate: it costs nothing), then the audit log
 * outermost (so cache hits and failures are logged too).
 */
export const createRoleModel = (role: Role, llm: LlmConfig, deps: RoleModelDeps): ChatModel => {
  const where = `llm.${role}`;
  const config = resolveModelConfig(llm[role], deps.env, where);
  const { env: _env, auditSink, pointer, gate, ...chatDeps } = deps;
  const cache = llm.cacheDir ? dirCache(llm.cacheDir, deps.onNotice) : undefined;
  const sink = auditSink ?? (llm.auditLog ? fileSink(llm.auditLog) : undefined);
  const layers = (wire: ChatModel): ChatModel => {
    let model = wire;
    if (gate) model = withBudget(model, gate, { where, model: config.model, maxOutputTokens: config.maxOutputTokens });
    if (cache) model = withCache(model, cache, config);
    if (sink) {
      model = withAudit(model, { sink, role, endpoint: config.baseURL, hashOnly: llm.auditHashOnly, ...(pointer ? { pointer } : {}) });
    }
    return model;
  };
  return portOf(new HexaChatOpenAI({ ...bareParts(config, { ...chatDeps, where }), layers }));
};
