import { createAppContext } from "../src/app/context.ts";
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseRunConfigYaml } from "../src/loop/run-config.ts";

/** The shipped families, as hexa has them with no HEXA_FAMILIES. */
const { families } = await createAppContext({});

await families.load();

const read = (name: string) => parseRunConfigYaml(readFileSync(`configs/${name}`, "utf8"), `configs/${name}`, families.all());

describe("the presets in configs/", () => {
  it("paper-catapult samples the actor as the HExA harness did: temperature 0.3, 800 output tokens (method.md §1.1)", () => {
    const c = read("paper-catapult.yaml");
    expect([c.llm.actor.temperature, c.llm.actor.maxOutputTokens]).toEqual([0.3, 800]);
    expect([c.actor.maxTurns, c.actor.compaction, c.rounds, c.episodesPerRound, c.offline.episodes]).toEqual([25, "paper", 17, 3, 5]);
  });

  it("paper-open-weight keeps the open-weight run's last 6 turns, pinned scene readings and 512 output tokens (method.md §1.1, §1.2)", () => {
    const c = read("paper-open-weight.yaml");
    expect([c.actor.keepTurns, c.actor.compaction, c.llm.actor.temperature, c.llm.actor.maxOutputTokens]).toEqual([6, "paper-open-weight", 0.3, 512]);
  });

  it("each parses as a run config", () => {
    const presets = readdirSync("configs").filter((f) => f.endsWith(".yaml"));
    expect(presets.length).toBeGreaterThanOrEqual(9);
    for (const name of presets) expect(read(name).levels.length, name).toBeGreaterThan(0);
  });
});
