import { describe, expect, it } from "vitest";
import { toyFamily } from "../../examples/toy-family/family.ts";
import { NO_SPEND } from "../llm/budget.ts";
import { parseRunConfig } from "../loop/run-config.ts";
import { checkGridForecast, jobForecasts, type CappedJob } from "./compare-budget.ts";

const toy = toyFamily();
const job = (key: string, actor: Record<string, unknown>): CappedJob => ({
  key,
  cfg: parseRunConfig({ family: "toy", levels: ["guess_small"], agent: "react", rounds: 1, episodesPerRound: 2, llm: { actor } }, "test", [toy]),
  dir: undefined,
  runLeft: true,
  evalSeeds: undefined,
});

describe("a compare grid's cap over an embedded actor", () => {
  it("takes budget.usd without a price for the GGUF, and prints its share as 0 (embedded)", () => {
    const jobs = [job("c1 run 0", { provider: "llama-cpp", model: "models/tiny.gguf" })];
    const printed: string[] = [];
    checkGridForecast(jobs, jobForecasts(jobs, toy, "/nonexistent-runs"), { usd: 1 }, NO_SPEND, { yes: false, print: (l) => printed.push(l) });
    expect(printed.join("\n")).toMatch(/llm\.actor models\/tiny\.gguf: ~[\d,]+ tokens, 0 \(embedded\) per episode/);
    expect(printed.join("\n")).toContain("the forecast fits");
  });

  it("still refuses budget.usd for an endpoint's model with no price, naming it", () => {
    const jobs = [job("c1 run 0", { model: "no-such-model" })];
    expect(() => checkGridForecast(jobs, jobForecasts(jobs, toy, "/nonexistent-runs"), { usd: 1 }, NO_SPEND, { yes: false, print: () => {} })).toThrow(
      /budget\.usd: c1 run 0: llm\.actor\.model "no-such-model" has no price/,
    );
  });
});
