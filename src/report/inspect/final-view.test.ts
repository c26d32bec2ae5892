import { describe, expect, it } from "vitest";
import { figureText } from "./final-view.ts";

describe("a final score's figure as text", () => {
  it("an interval where there is one; the reason where one seed gave none; n/a with why where undefined", () => {
    expect(figureText({ label: "F", mean: 2, std: 1, ci95: [1, 3], n: 3 })).toBe("F 2.00 ± 1.00 [1.00, 3.00] (n 3)");
    expect(figureText({ label: "F", mean: 2, std: 0, n: 1, why: "1 seed: no interval below 2 independent seeds" })).toBe(
      "F 2.00 ± 0.00 (n 1; no interval: 1 seed: no interval below 2 independent seeds)",
    );
    expect(figureText({ label: "normalised", mean: null, n: 1, why: "1 seed with all three trainings known: undefined below 2" })).toBe(
      "normalised n/a (1 seed with all three trainings known: undefined below 2)",
    );
  });
});
