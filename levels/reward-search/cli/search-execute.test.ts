import { describe, expect, it } from "vitest";
import { finalPlanText } from "./search-execute.ts";

describe("hexa search's announcement of its final trainings", () => {
  it("names the human reward only where the task has one", () => {
    expect(finalPlanText(3, 2048, 1_000_000, true)).toBe(
      "final score: the best reward, the sparse and the human one on 3 fresh seeds each, trained at 2,048 env steps, NOT the task's scored budget (1,000,000)",
    );
    expect(finalPlanText(1, 2048, 2048, false)).toBe(
      "final score: the best reward and the sparse one (a held-out task: no hand-written reward) on 1 fresh seed each, trained at 2,048 env steps, the task's scored budget",
    );
  });
});
