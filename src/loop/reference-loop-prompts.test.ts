import { describe, expect, it } from "vitest";
import { expectEqual, runBoth } from "../../test/support/reference-runs.ts";

/** The reference loop as the oracle of the concurrent one (test/support/reference-runs.ts), with a model actor. */
describe("the concurrent loop computes the reference loop's run", () => {
  it("a model actor whose moves follow its prompt: same records, bank updates and prompts", async () => {
    const both = await runBoth({
      ...{ agent: "hexa", evolver: "heuristic", init: "off2on", update: "evolving" },
      ...{ rounds: 2, episodesPerRound: 2, offline: { episodes: 2 }, actor: { maxTurns: 6 } },
    });
    expectEqual(both);
    // Some counted past the turn budget and failed, some bisected with the skill in their prompt: the bank mattered.
    expect(new Set(both.reference.episodes.map((e) => e.trajectory.success))).toEqual(new Set([true, false]));
    expect(both.reference.episodes.some((e) => e.phase === "stream" && e.retrieved.length > 0)).toBe(true);
  });
});
