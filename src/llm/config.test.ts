import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { ConfigError } from "../errors.ts";
import { concurrencyOf, LlmConfig, ModelConfig, NO_KEY, resolveModelConfig } from "./config.ts";

describe("LlmConfig", () => {
  it("fills every role from the defaults", () => {
    const llm = LlmConfig.parse({ evolver: { model: "gpt-4.1" } });
    expect(llm.actor).toEqual({
      model: "gpt-4.1-mini",
      temperature: 1,
      maxOutputTokens: 8192,
      timeoutMs: 120_000,
      maxRetries: 4,
      toolChoice: "auto",
      extraBody: {},
      streaming: false,
      structuredOutput: "auto",
    });
    expect(llm.evolver.model).toBe("gpt-4.1");
    // The evolver's own default, kept when other fields are set.
    expect(llm.evolver.temperature).toBe(0.2);
    expect(LlmConfig.parse({ evolver: { temperature: 0.7 } }).evolver.temperature).toBe(0.7);
    expect(llm.evolver).toMatchObject({ maxRetries: 4 });
    expect(llm.auditHashOnly).toBe(false);
  });

  it("limits a server on this machine to one request at a time unless concurrency is set", () => {
    const at = (baseURL: string, concurrency?: number) => concurrencyOf({ baseURL, ...(concurrency ? { concurrency } : {}) });
    expect([at("http://127.0.0.1:8080/v1"), at("http://localhost:11434/v1"), at("http://[::1]:8000/v1")]).toEqual([1, 1, 1]);
    expect([at("https://api.openai.com/v1"), at("http://10.0.0.5:8000/v1"), at("http://localhost:8000/v1", 8)]).toEqual([4, 4, 8]);
  });

  it("describes every field (docs/spec/style.md §8)", () => {
    const undescribed = (shape: Record<string, z.ZodType>) => Object.keys(shape).filter((k) => !shape[k]!.description);
    expect(undescribed(ModelConfig.shape)).toEqual([]);
    for (const option of LlmConfig.shape.evolver.unwrap().options) expect(undescribed(option.shape)).toEqual([]);
    for (const option of LlmConfig.shape.actor.unwrap().options) expect(undescribed(option.shape)).toEqual([]);
    expect(undescribed(LlmConfig.shape)).toEqual([]);
  });

  it("rejects a bad value", () => {
    expect(ModelConfig.safeParse({ maxRetries: -1 }).success).toBe(false);
    expect(ModelConfig.safeParse({ baseURL: "not a url" }).success).toBe(false);
  });
});

describe("LlmConfig with an embedded model", () => {
  it("takes provider llama-cpp with a GGUF path for any role, the evolver's temperature low as for endpoints", () => {
    const llm = LlmConfig.parse({ actor: { provider: "llama-cpp", model: "m.gguf" }, evolver: { provider: "llama-cpp", model: "m.gguf", threads: 2 } });
    expect(llm.actor).toMatchObject({ provider: "llama-cpp", model: "m.gguf", contextSize: 8192, temperature: 1 });
    expect(llm.evolver).toMatchObject({ provider: "llama-cpp", threads: 2, temperature: 0.2 });
    // The default output cap leaves most of the default context to the prompt: 8192 for both refused every prompt.
    expect(llm.actor).toMatchObject({ maxOutputTokens: 2048 });
    expect(llm.synthesiser).not.toHaveProperty("provider");
    expect(LlmConfig.parse({ actor: { provider: "openai", model: "m" } }).actor).toMatchObject({ provider: "openai", timeoutMs: 120_000 });
  });

  it("names the field that is wrong", () => {
    const issues = (actor: unknown) => LlmConfig.safeParse({ actor }).error?.issues.map((i) => [i.path.join("."), i.code]);
    expect(issues({ provider: "llama-cpp" })).toEqual([["actor.model", "invalid_type"]]);
    expect(issues({ provider: "llama-cpp", model: "m.gguf", baseURL: "http://localhost:1/v1" })).toEqual([["actor", "unrecognized_keys"]]);
    expect(issues({ provider: "ollama", model: "m" })).toEqual([["actor.provider", "invalid_union"]]);
  });
});

describe("resolveModelConfig", () => {
  const defaults = ModelConfig.parse({});

  it("takes the key and endpoint from the config first, then the env, then OpenAI", () => {
    const env = { OPENAI_API_KEY: "env-key", OPENAI_BASE_URL: "http://env.local/v1" };
    expect(resolveModelConfig({ ...defaults, apiKey: "cfg-key", baseURL: "http://cfg.local/v1" }, env, "llm.actor")).toMatchObject({
      apiKey: "cfg-key",
      baseURL: "http://cfg.local/v1",
    });
    expect(resolveModelConfig(defaults, env, "llm.actor")).toMatchObject({ apiKey: "env-key", baseURL: "http://env.local/v1" });
    expect(resolveModelConfig(defaults, { OPENAI_API_KEY: "k" }, "llm.actor").baseURL).toBe("https://api.openai.com/v1");
  });

  it("names the field and the fix when no key is set", () => {
    expect(() => resolveModelConfig(defaults, {}, "llm.evolver")).toThrow(
      new ConfigError(
        "llm.evolver.apiKey: no API key for https://api.openai.com/v1 (got none); set llm.evolver.apiKey, HEXA_EVOLVER_API_KEY or OPENAI_API_KEY (a server on this machine needs none)",
      ),
    );
    expect(resolveModelConfig(defaults, { HEXA_EVOLVER_API_KEY: "role", OPENAI_API_KEY: "shared" }, "llm.evolver").apiKey).toBe("role");
    expect(resolveModelConfig(defaults, { HEXA_ACTOR_API_KEY: "role", OPENAI_API_KEY: "shared" }, "llm.evolver").apiKey).toBe("shared");
    expect(() => resolveModelConfig(defaults, { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "localhost" }, "llm.actor")).toThrow(ConfigError);
  });

  it("needs no key for a server on this machine", () => {
    for (const baseURL of ["http://localhost:8000/v1", "http://127.0.0.1:8080/v1", "http://[::1]:11434/v1"])
      expect(resolveModelConfig({ ...defaults, baseURL }, {}, "llm.actor")).toMatchObject({ baseURL, apiKey: NO_KEY });
    expect(() => resolveModelConfig({ ...defaults, baseURL: "http://10.0.0.5:8000/v1" }, {}, "llm.actor")).toThrow(/no API key for http:\/\/10\.0\.0\.5/);
  });
});
