import { describe, expect, it } from "vitest";
import { BudgetExceeded, NO_SPEND, SpendGate } from "./budget.ts";
import { memoryLedger, type SpendLedger } from "./spend-ledger.ts";

const turn = (output: number) => ({ model: "m", usage: { input: 100, output, cached: 0 } });
const prices = { m: { input: 1, cachedInput: 0.5, output: 2 } };

describe("memoryLedger", () => {
  it("checks each call against the answered calls' spend, holding nothing for calls in flight", async () => {
    const l = memoryLedger({ tokens: 1_000 }, { usd: 0, tokens: 500, calls: 1 });
    expect(await l.reserve("llm.actor", { usd: 0, tokens: 400 })).toBeUndefined();
    expect(await l.reserve("llm.actor", { usd: 0, tokens: 400 })).toBeUndefined();
    expect(await l.reserve("llm.actor", { usd: 0, tokens: 501 })).toEqual({
      why: "over",
      spent: { usd: 0, tokens: 500, calls: 1 },
      cap: { tokens: 1_000 },
      held: false,
    });
    await l.settle("llm.actor", { usd: 0, tokens: 400 }, { usd: 0.1, tokens: 450, output: 350 });
    expect(await l.total()).toEqual({ usd: 0.1, tokens: 950, calls: 2 });
    expect(await l.outputs("llm.actor")).toEqual({ sum: 350, n: 1 });
  });
});

describe("SpendGate", () => {
  it("estimates from the ledger's output sizes, and refuses every call after its first refusal", async () => {
    const gate = new SpendGate({ tokens: 40_000 }, prices);
    gate.learn("llm.actor", [30_000]);
    const next = await gate.estimate("llm.actor", "m", [{ role: "user", content: "x".repeat(398) }], [], 40_000); // 398 + "[]" = 400 characters: 100 input tokens
    expect(next.tokens).toBe(30_100);
    await gate.before("llm.actor", next);
    await gate.after("llm.actor", next, turn(30_000));
    await expect(gate.before("llm.actor", next)).rejects.toThrow(
      /stopped: budget — the next llm\.actor call \(about \$[\d.]+, 30,100 tokens\) would cross budget\.tokens 40,000; spent \$[\d.]+ and 30,100 tokens on 1 call\(s\)$/,
    );
    await expect(gate.before("llm.actor", { usd: 0, tokens: 1 })).rejects.toThrow(BudgetExceeded);
    expect(await gate.total()).toMatchObject({ tokens: 30_100, calls: 1 });
    expect(NO_SPEND).toEqual({ usd: 0, tokens: 0, calls: 0 });
  });

  it("names the other process's refusal and a lost ledger, as a shared ledger reports them", async () => {
    const shared = (why: "earlier" | "lost"): SpendLedger => ({
      ...memoryLedger({}, NO_SPEND),
      reserve: async () => ({ why, spent: { usd: 0, tokens: 9_000, calls: 3 }, cap: { tokens: 10_000 }, held: true }),
    });
    await expect(new SpendGate({ tokens: 10_000 }, prices, NO_SPEND, shared("earlier")).before("llm.actor", { usd: 0, tokens: 5 })).rejects.toThrow(
      /stopped: budget — another call of this run was refused before this llm\.actor call, at budget\.tokens 10,000; spent \$0\.0000 and 9,000 tokens on 3 call\(s\) \(estimates of calls in flight included\)/,
    );
    await expect(new SpendGate({ tokens: 10_000 }, prices, NO_SPEND, shared("lost")).before("llm.actor", { usd: 0, tokens: 5 })).rejects.toThrow(
      /the run's shared spend count is gone from Redis/,
    );
  });
});
