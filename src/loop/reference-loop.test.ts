import { describe, expect, it } from "vitest";
import { expectEqual, runBoth } from "../../test/support/reference-runs.ts";

/**
 * The reference loop as the oracle of the concurrent one (test/support/reference-runs.ts), with the heuristic
 * actor and evolver in every kind of bank start and update; a model actor's prompts: reference-loop-prompts.test.ts.
 */
describe("the concurrent loop computes the reference loop's run", () => {
  it.each([
    { init: "offline", update: "static" },
    { init: "off2on", update: "replacement" },
    { init: "off2on", update: "evolving" },
    { init: "online", update: "static" },
  ])("heuristic actor and evolver, $init × $update: same records, bank updates and shown banks", async (modes) => {
    const both = await runBoth({ agent: "heuristic", evolver: "heuristic", rounds: 3, episodesPerRound: 3, offline: { episodes: 2 }, ...modes });
    expectEqual(both);
    // The bank grew and was shown: the last episode retrieved from it.
    expect(both.reference.updates.some((u) => u.events.length > 0)).toBe(true);
    expect(both.reference.episodes.at(-1)!.retrieved).not.toEqual([]);
  });
});
