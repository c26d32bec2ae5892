import { afterAll, describe, expect, it } from "vitest";
import toyModule, { toyFamily } from "../../examples/toy-family/family.ts";
import { readCertifiedSeeds } from "../../levels/interphyre/certified-seed-list.ts";
import { interphyreFamily } from "../../levels/interphyre/family.ts";
import { interphyreModule } from "../../levels/interphyre/module.ts";
import { rewardSearchFamily } from "../../levels/reward-search/family.ts";
import { rewardSearchModule } from "../../levels/reward-search/module.ts";
import type { TrainerPool } from "../../levels/reward-search/trainer/pool.ts";
import { checkFamily } from "../../src/family/check-family.ts";
import type { LevelFamily } from "../../src/family/family.ts";
import type { FamilyHost } from "../../src/family/host.ts";
import { parseRunConfig } from "../../src/loop/run-config.ts";

/** checkFamily on the three families hexa ships or exemplifies, and on families broken one member at a time. */
const configOf = (family: LevelFamily) => parseRunConfig({ family: family.id, levels: [family.listLevels()[0]] }, "check", [family]);

/** Opening an env asks no trainer: every use of this one fails the test. */
const noTrainer = (): TrainerPool => {
  const used = (): never => {
    throw new Error("checkFamily used the trainer");
  };
  return { sent: 0, hello: used, close: async () => {}, train: used } as unknown as TrainerPool;
};

/** A module's host is for its commands; checking the module calls none of them. */
const unusedHost = new Proxy({} as FamilyHost, {
  get: (_, name) => () => {
    throw new Error(`checkFamily used the host's ${String(name)}`);
  },
});

const toy = toyFamily();
const interphyre = interphyreFamily((level) => readCertifiedSeeds(level));
const rewardSearch = rewardSearchFamily(noTrainer);
afterAll(async () => {
  await interphyre.close?.();
  await rewardSearch.close?.();
});

describe("checkFamily", () => {
  it.each([
    { family: toy, module: toyModule },
    { family: interphyre, module: interphyreModule },
    { family: rewardSearch, module: rewardSearchModule(unusedHost) },
  ])("accepts the $family.id family and its module", async ({ family, module }) => {
    await expect(checkFamily(family, { config: configOf(family), module })).resolves.toBeUndefined();
  });

  it("refuses a broken family, naming each member that fails", async () => {
    const heuristics = toy.heuristics!;
    const broken: LevelFamily = {
      ...toy,
      words: { ...toy.words, task: "" },
      // A capability declared without one of its required parts.
      heuristics: { play: heuristics.play } as typeof heuristics,
      seedsOf: () => [3, 1, 3],
    };
    const refused = checkFamily(broken, { config: configOf(toy) });
    await expect(refused).rejects.toThrow(/^family toy does not conform to the seam: /);
    await expect(refused).rejects.toThrow(/words\.task: empty/);
    await expect(refused).rejects.toThrow(/heuristics\.evolve: missing/);
    await expect(refused).rejects.toThrow(/seedsOf\('guess_small'\): repeats a seed/);
  });

  it("refuses a family whose level is not resolved, and a module that is not its family's", async () => {
    const unresolved: LevelFamily = { ...toy, listLevels: () => [...toy.listLevels(), "guess_huge"] };
    await expect(checkFamily(unresolved, { config: configOf(toy) })).rejects.toThrow(/checkLevel\('guess_huge'\): refused a listed level \(unknown toy level/);
    await expect(checkFamily(toy, { config: configOf(toy), module: interphyreModule })).rejects.toThrow(
      /id: the module's 'interphyre' is not its family's 'toy'/,
    );
  });

  it("refuses an env whose tool's parameters are no JSON schema of an object", async () => {
    const badTools: LevelFamily = {
      ...toy,
      openEnv: async (task, config, maxTurns) => {
        const env = await toy.openEnv(task, config, maxTurns);
        return { ...env, tools: env.tools.map((t) => (t.name === "probe" ? { ...t, parameters: { type: "bogus" } } : t)) };
      },
    };
    await expect(checkFamily(badTools, { config: configOf(toy) })).rejects.toThrow(/openEnv\('guess_small', 0\)\.tools\.probe\.parameters: /);
  });
});
