import { withAudit, fileSink } from "./audit-log.ts";
import { withBudget, type SpendGate } from "./budget.ts";
import type { RoleModel } from "./ask.ts";
import type { BaseMessage } from "@langchain/core/messages";
import type { Answer, Wire } from "./chat-model.ts";
import { isEmbedded, resolveModelConfig, type Env, type LlmConfig, type Role } from "./config.ts";
import { embeddedWire } from "./embedded-wire.ts";
import { LlamaCppChatModel } from "./llama-cpp/chat-model.ts";
import type { LlamaCppModelConfig } from "./llama-cpp/config.ts";
import type { LlamaModels } from "./llama-cpp/loaded-models.ts";
import { ggufIdentity } from "./llama-cpp/served.ts";
import { answeredParts, bareParts, HexaChatOpenAI, oncePerKind } from "./openai-chat.ts";
import type { OpenAIChatDeps } from "./openai-client.ts";
import { dirCache, withCache, type CacheSampling, type ResponseCache } from "./response-cache.ts";
import { ConfigError } from "../errors.ts";

export interface RoleModelDeps extends Omit<OpenAIChatDeps, "where"> {
  /** Where OPENAI_API_KEY / OPENAI_BASE_URL come from; the CLI passes process.env. */
  env: Env;
  /** Overrides `llm.auditLog` (tests pass an array's push). */
  auditSink?: (line: string) => void;
  /** Where the messages of the current call are kept, for hash-only audit lines. */
  pointer?: () => string;
  /** The run's spend cap, shared by its roles; asked only for calls that reach the endpoint. */
  gate?: SpendGate;
  /** The process's embedded models (the run context's); needed by a role with `provider: llama-cpp`. */
  llama?: LlamaModels;
}

/** What one role's pipeline is made of, whichever model answers at its centre. */
interface Pipeline {
  role: Role;
  hashOnly: boolean;
  cache: ResponseCache | undefined;
  sink: ((line: string) => void) | undefined;
  pointer: (() => string) | undefined;
  gate: SpendGate | undefined;
}

/** What one exchange is keyed and logged by: where it went, the model it is priced as, what changes its answer. */
interface Exchange {
  endpoint: string;
  model: string;
  sampling: CacheSampling;
  maxOutputTokens: number | null;
}

const pipelineOf = (role: Role, llm: LlmConfig, deps: RoleModelDeps): Pipeline => ({
  role,
  hashOnly: llm.auditHashOnly,
  cache: llm.cacheDir ? dirCache(llm.cacheDir, deps.onNotice) : undefined,
  sink: deps.auditSink ?? (llm.auditLog ? fileSink(llm.auditLog) : undefined),
  pointer: deps.pointer,
  gate: deps.gate,
});

/**
 * Around each exchange: the spend gate, then the response cache (a hit skips the model and the gate: it costs
 * nothing), then the audit log outermost (so cache hits and failures are logged too).
 */
const layered = (p: Pipeline, x: Exchange, wire: Wire): Wire => {
  const where = `llm.${p.role}`;
  let model = wire;
  if (p.gate) model = withBudget(model, p.gate, { where, model: x.model, maxOutputTokens: x.maxOutputTokens });
  if (p.cache) model = withCache(model, p.cache, x.sampling);
  if (p.sink)
    model = withAudit(model, { sink: p.sink, role: p.role, endpoint: x.endpoint, hashOnly: p.hashOnly, ...(p.pointer ? { pointer: p.pointer } : {}) });
  return model;
};

/**
 * An embedded role (src/llm/llama-cpp/): the same pipeline around node-llama-cpp in this process. Its requests are
 * keyed by the configured path (a replay finds them); the cache key and the audit line carry the file's hash.
 */
const embeddedRoleModel = (p: Pipeline, config: LlamaCppModelConfig, deps: RoleModelDeps): RoleModel => {
  const where = `llm.${p.role}`;
  const llama = deps.llama;
  if (!llama) throw new ConfigError(`${where}.provider: llama-cpp runs a model in this process, which this command does not load models in`);
  const chat = new LlamaCppChatModel({ config, models: llama, where });
  const notice = oncePerKind(deps.onNotice);
  const { temperature, maxOutputTokens, topP, seed, contextSize } = config;
  const answerFor =
    (requestMessages: readonly BaseMessage[]): Answer =>
    async (messages, tools, output) => {
      const identity = ggufIdentity((await llama.served(config, where)).sha256);
      const wire = embeddedWire(chat, requestMessages, { name: config.model, identity, where, maxOutputTokens, notice });
      const sampling = {
        temperature,
        maxOutputTokens,
        baseURL: identity,
        extraBody: { contextSize, ...(topP === undefined ? {} : { topP }), ...(seed === undefined ? {} : { seed }) },
      };
      return layered(p, { endpoint: identity, model: identity, sampling, maxOutputTokens }, wire).invoke(messages, tools, output);
    };
  return new HexaChatOpenAI(answeredParts(config.model, answerFor));
};

/** A role's model as the run uses it: an endpoint's (src/llm/openai-chat.ts) or an embedded one, inside the same pipeline. */
export const createRoleModel = (role: Role, llm: LlmConfig, deps: RoleModelDeps): RoleModel => {
  const where = `llm.${role}`;
  const given = llm[role];
  const pipeline = pipelineOf(role, llm, deps);
  if (isEmbedded(given)) return embeddedRoleModel(pipeline, given, deps);
  const config = resolveModelConfig(given, deps.env, where);
  const { env: _env, auditSink: _sink, pointer: _pointer, gate: _gate, llama: _llama, ...chatDeps } = deps;
  const exchange = { endpoint: config.baseURL, model: config.model, sampling: config, maxOutputTokens: config.maxOutputTokens };
  return new HexaChatOpenAI({ ...bareParts(config, { ...chatDeps, where }), layers: (wire) => layered(pipeline, exchange, wire) });
};
