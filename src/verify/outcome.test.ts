import { describe, expect, it } from "vitest";
import { reportOf, reportText, zeroCounts } from "./outcome.ts";

describe("the line hexa verify prints", () => {
  it("a judgment counts the trajectories it re-judged, not episodes, bank events or trainings", () => {
    const text = reportText(reportOf("j", { ...zeroCounts(), runs: 1, judged: 3, modelExchanges: 7 }, undefined));
    expect(text).toBe("identical: 3 trajectories re-judged, 7 model exchanges");
    expect(reportText(reportOf("j", { ...zeroCounts(), runs: 1, judged: 1 }, undefined))).toBe("identical: 1 trajectory re-judged, 0 model exchanges");
  });

  it("a run still counts its episodes, bank events, exchanges and trainings", () => {
    const counts = { ...zeroCounts(), runs: 1, episodes: 4, bankEvents: 2, modelExchanges: 5, trainings: 1 };
    expect(reportText(reportOf("r", counts, undefined))).toBe("identical: 4 episodes, 2 bank events, 5 model exchanges, 1 trainings checked");
  });
});
