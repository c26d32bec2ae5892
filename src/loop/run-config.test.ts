import { z } from "zod";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { ConfigError } from "../errors.ts";
import type { LevelFamily } from "../family/family.ts";
import { parseRunConfig, parseRunConfigYaml, RunConfig, runConfigYaml } from "./run-config.ts";
import { schedule } from "./schedule.ts";

const fail = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error("expected a ConfigError");
};

describe("RunConfig", () => {
  it("fills the paper's defaults (docs/spec/method.md §1, §3, §5)", () => {
    const c = parseRunConfig({ family: "interphyre", levels: ["catapult"] }, "cfg");
    expect([c.rounds, c.episodesPerRound, c.actor.maxTurns, c.retriever.topSkills, c.retriever.topMistakes, c.bank.maxSkills, c.bank.maxMistakes]).toEqual([
      17, 3, 25, 6, 4, 10, 5,
    ]);
    expect([c.init, c.update, c.agent, c.offline.episodes]).toEqual(["off2on", "evolving", "hexa", 5]);
  });

  it("names unknown keys at any depth, wrong types and bad YAML with the file", () => {
    expect(fail(() => parseRunConfig({ family: "interphyre", levels: ["a"], round: 3 }, "x.yaml"))).toMatch(/^x\.yaml: round: unknown key/);
    expect(fail(() => parseRunConfig({ family: "interphyre", levels: ["a"], actor: { maxTurn: 3 } }, "x.yaml"))).toMatch(
      /actor\.maxTurn: unknown key; .*\(did you mean actor\.maxTurns\?\)$/,
    );
    expect(fail(() => parseRunConfig({ family: "interphyre", levels: ["a"], llm: { actor: { temprature: 1 } } }, "x.yaml"))).toMatch(
      /llm\.actor\.temprature: unknown key; .*\(did you mean llm\.actor\.temperature\?\)$/,
    );
    const embedded = { provider: "llama-cpp", model: "m.gguf", gpuLayer: 2 };
    expect(fail(() => parseRunConfig({ family: "interphyre", levels: ["a"], llm: { evolver: embedded } }, "x.yaml"))).toMatch(
      /llm\.evolver\.gpuLayer: unknown key; .*\(did you mean llm\.evolver\.gpuLayers\?\)$/,
    );
    expect(fail(() => parseRunConfig({ family: "interphyre", levels: ["a"], rounds: "three" }, "x.yaml"))).toMatch(/rounds: .*number/i);
    expect(fail(() => parseRunConfig({ family: "interphyre" }, "x.yaml"))).toMatch(/levels/);
    expect(fail(() => parseRunConfigYaml("levels: [a\nrounds: 2", "x.yaml"))).toMatch(/^x\.yaml: not valid YAML/);
  });

  it("refuses cells the method does not define and contradictory offline sources", () => {
    expect(fail(() => parseRunConfig({ family: "interphyre", levels: ["a"], init: "offline", update: "evolving" }, "c"))).toMatch(
      /offline initialisation freezes the bank/,
    );
    expect(fail(() => parseRunConfig({ family: "interphyre", levels: ["a"], init: "online", offline: { banks: ["b.json"] } }, "c"))).toMatch(
      /online starts with no bank/,
    );
    expect(fail(() => parseRunConfig({ family: "interphyre", levels: ["a"], offline: { banks: ["b"], trajectories: ["t"] } }, "c"))).toMatch(/not both/);
  });

  it("prints every default as commented YAML that parses back to the same config, without secrets", () => {
    const c = parseRunConfig({ family: "interphyre", levels: ["catapult"], llm: { actor: { apiKey: "sk-secret" } } }, "c");
    const text = runConfigYaml(c);
    expect(text).toContain("# R: rounds per level\nrounds: 17");
    expect(text).toContain("  actor:\n    # model name sent to the endpoint\n    model: gpt-4.1-mini\n");
    expect(text).toContain("  evolver:\n    # model name sent to the endpoint\n    model: gpt-4.1-mini\n");
    expect(text).not.toContain("sk-secret");
    const back = RunConfig.parse(parseYaml(text));
    expect(back).toEqual({ ...c, llm: { ...c.llm, actor: { ...c.llm.actor, apiKey: undefined } } });
  });

  it("comments an embedded role's fields as its provider describes them", () => {
    const c = parseRunConfig({ family: "interphyre", levels: ["catapult"], llm: { synthesiser: { provider: "llama-cpp", model: "m.gguf" } } }, "c");
    const text = runConfigYaml(c);
    expect(text).toContain(
      "  synthesiser:\n    # run the model in this process from a GGUF file, no server\n    provider: llama-cpp\n    # path to the model's .gguf file",
    );
    expect(text).toContain("    # tokens of context per conversation");
  });
});

const family = (seeds: number[]): LevelFamily => ({
  id: "toy",
  title: "toy",
  listLevels: () => ["toy"],
  checkLevel: (l) => {
    if (l !== "toy") throw new ConfigError(`unknown level '${l}'; known: toy`);
  },
  seedsOf: () => seeds,
  describe: () => "",
  action: z.unknown(),
  words: {
    task: "toy task",
    solvesBy: "guessing",
    numbers: "numbers",
    mechanisms: "mechanisms",
    partialExamples: "partial steps",
    primitive: { kind: "primitive", example: "an example" },
    names: "the things",
    cause: "reason",
    verifyBy: "by trying it",
    seedsDiffer: "seeds differ",
    renderAction: String,
    sceneOf: (level) => level,
    evidenceOf: (_level, step) => ({ action: step.tool, outcome: [step.observation] }),
  },
  config: { key: "toy", schema: z.strictObject({}) },
  openEnv: () => Promise.reject(new Error("not played here")),
});

describe("schedule", () => {
  const seeds = Array.from({ length: 20 }, (_, i) => 100 + i);
  it("cuts stream, offline and held-out seeds from the vetted list, disjoint and paired by offset", () => {
    const c = parseRunConfig({ family: "interphyre", levels: ["toy"], rounds: 3, episodesPerRound: 2, offline: { episodes: 2 }, seeds: { offset: 4 } }, "c");
    const s = schedule(c, family(seeds)).get("toy")!;
    expect(s.rounds).toEqual([
      [104, 105],
      [106, 107],
      [108, 109],
    ]);
    expect(s.offline).toEqual([110, 111]);
    expect(s.heldOut).toEqual(seeds.slice(12)); // never the seeds before the offset
    expect(s.heldOut.some((x) => s.seen.has(x))).toBe(false);
    const online = schedule({ ...c, init: "online" }, family(seeds)).get("toy")!;
    expect(online.offline).toEqual([]);
    expect(online.rounds).toEqual(s.rounds);
    expect(online.heldOut).toEqual(s.heldOut); // the offline block stays reserved: held-out seeds pair across methods
  });

  it("says how many seeds a run needs when the list is short, and names unknown or repeated levels", () => {
    const c = parseRunConfig({ family: "interphyre", levels: ["toy"], rounds: 17 }, "c");
    expect(fail(() => schedule(c, family(seeds)))).toMatch(/toy has 20 vetted seeds, the run needs 56/);
    expect(fail(() => schedule({ ...c, levels: ["nope"] }, family(seeds)))).toMatch(/unknown level 'nope'/);
    expect(fail(() => schedule({ ...c, rounds: 1, levels: ["toy", "toy"] }, family(seeds)))).toMatch(/listed twice/);
  });
});
