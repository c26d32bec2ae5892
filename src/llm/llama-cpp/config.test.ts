import { describe, expect, it } from "vitest";
import { LlamaCppModelConfig } from "./config.ts";

const base = { provider: "llama-cpp", model: "m.gguf" };

describe("an embedded model's config", () => {
  it("refuses a context so large it would only allocate memory, naming contextSize", () => {
    const r = LlamaCppModelConfig.safeParse({ ...base, contextSize: 2 ** 30 });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(["contextSize"]);
    expect(LlamaCppModelConfig.safeParse({ ...base, contextSize: 2 ** 20 }).success).toBe(true);
  });

  it("refuses hundreds of concurrent conversations, naming parallel", () => {
    const r = LlamaCppModelConfig.safeParse({ ...base, parallel: 500 });
    expect(r.error?.issues[0]?.path).toEqual(["parallel"]);
    expect(LlamaCppModelConfig.parse({ ...base }).parallel).toBe(1);
  });
});
