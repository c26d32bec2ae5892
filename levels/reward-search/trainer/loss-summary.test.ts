import { describe, expect, it } from "vitest";
import { LossSummary, summariseLosses } from "./loss-summary.ts";

describe("summariseLosses", () => {
  it("averages each loss over the last quarter of the updates that reported losses, each over the values it has", () => {
    const lines = [
      { losses: { approxKl: 1, entropy: 1 } },
      {},
      { losses: { approxKl: 1, entropy: 1 } },
      { losses: { approxKl: 1, entropy: 1 } },
      { losses: { approxKl: 1, entropy: 1 } },
      { losses: { approxKl: 1, entropy: 1 } },
      { losses: { approxKl: 1, entropy: 1 } },
      { losses: { approxKl: 0.03, entropy: null } },
      { losses: { approxKl: 0.01, entropy: 0.5 } },
    ];
    const s = summariseLosses(lines);
    expect(s).toEqual({ updates: 2, policyLoss: null, valueLoss: null, entropy: 0.5, approxKl: 0.02, clipFrac: null, explainedVariance: null });
    expect(LossSummary.parse(s)).toEqual(s);
  });

  it("is null when no line carried losses", () => {
    expect(summariseLosses([])).toBeNull();
    expect(summariseLosses([{}, {}])).toBeNull();
  });
});
