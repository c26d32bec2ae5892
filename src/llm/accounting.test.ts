import { afterEach, describe, expect, it } from "vitest";
import { turnOf } from "../../test/support/turn-of.ts";
import { HumanMessage } from "@langchain/core/messages";
import { startFakeOpenAI, type FakeOpenAI } from "../../test/support/fake-openai-server.ts";
import { costUsd, priceOf, UsageRecord, usageRecord, UsageTally } from "./accounting.ts";
import type { AssistantTurn } from "./chat-model.ts";
import { DEFAULT_PRICES, ModelConfig, PriceTable } from "./config.ts";
import { EndpointLimits } from "./endpoint-limits.ts";
import { createOpenAIChat } from "./openai-chat.ts";

const prices = PriceTable.parse({ "model-a": { input: 2, cachedInput: 0.5, output: 8 } });
const turn = (model: string, input: number, output: number, cached: number, fromCache = false): AssistantTurn => ({
  text: "",
  toolCalls: [],
  usage: { input, output, cached },
  model,
  latencyMs: 1,
  fromCache,
});

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("cost", () => {
  it("prices cached input at the cached rate and the rest of the input at the full rate", () => {
    // (600 · 2 + 400 · 0.5 + 100 · 8) / 1e6
    expect(costUsd({ input: 2, cachedInput: 0.5, output: 8 }, { input: 1000, output: 100, cached: 400 })).toBeCloseTo(0.0022, 12);
  });

  it("finds a dated snapshot under its base name, and nothing for an unknown model", () => {
    expect(priceOf(prices, "model-a-2025-04-14")).toEqual(prices["model-a"]);
    expect(priceOf(prices, "model-a-mini")).toBeUndefined();
    expect(PriceTable.parse(undefined)).toEqual(DEFAULT_PRICES);
  });

  it("records an unknown model at cost 0, flagged unpriced", () => {
    expect(usageRecord("actor", turn("mystery-7b", 1000, 10, 0), prices)).toEqual({
      role: "actor",
      model: "mystery-7b",
      input: 1000,
      output: 10,
      cached: 0,
      costUsd: 0,
      priced: false,
      fromCache: false,
    });
  });

  it("costs the usage a real call reported, cached tokens included", async () => {
    server = await startFakeOpenAI([{ text: "hi", model: "model-a-2025-01-01", usage: { prompt: 3000, completion: 200, cached: 2000 } }]);
    const model = createOpenAIChat({ ...ModelConfig.parse({ model: "model-a" }), baseURL: server.url, apiKey: "k" }, { limits: new EndpointLimits() });
    const record = usageRecord("evolver", await turnOf(model, [new HumanMessage("hi")]), prices);

    expect(UsageRecord.parse(record)).toEqual(record);
    expect(record).toMatchObject({ role: "evolver", model: "model-a-2025-01-01", input: 3000, output: 200, cached: 2000, priced: true });
    expect(record.costUsd).toBeCloseTo((1000 * 2 + 2000 * 0.5 + 200 * 8) / 1e6, 12);
  });
});

describe("UsageTally", () => {
  it("sums records, counting unpriced calls and cache hits (which cost nothing)", () => {
    const episode = new UsageTally();
    episode.add(usageRecord("actor", turn("model-a", 1000, 100, 400), prices));
    episode.add(usageRecord("actor", turn("model-a", 2000, 50, 0), prices));
    episode.add(usageRecord("actor", turn("unknown", 10, 10, 0), prices));
    episode.add(usageRecord("actor", turn("model-a", 500, 5, 0, true), prices));

    const total = episode.total();
    expect(total).toMatchObject({ calls: 4, input: 3510, output: 165, cached: 400, unpricedCalls: 1, cacheHits: 1 });
    expect(total.costUsd).toBeCloseTo(0.0022 + (2000 * 2 + 50 * 8) / 1e6, 12);
    expect(new UsageTally().total()).toEqual({ calls: 0, input: 0, output: 0, cached: 0, costUsd: 0, unpricedCalls: 0, cacheHits: 0 });
  });
});
