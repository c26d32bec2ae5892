import { createAppContext } from "../src/app/context.ts";
import { describe, expect, it } from "vitest";
import { seedList } from "../src/cli/eval.ts";
import { heldOutArg, sharedHeldOut } from "../src/loop/compare/heldout.ts";
import { heldOutSeeds } from "../src/loop/evaluate.ts";
import { parseRunConfig } from "../src/loop/run-config.ts";
import { schedule } from "../src/loop/schedule.ts";
import { ConfigError } from "../src/errors.ts";

/** The shipped families, as hexa has them with no HEXA_FAMILIES. */
const { families } = await createAppContext({});

// The families are built once, as the CLI builds them before a command reads them.
await families.load();

/**
 * Held-out seeds per level: levels' certified lists differ, so the quickstart's two levels at 17 rounds share no
 * unseen seed; `hexa eval --seeds LEVEL=…;LEVEL=…` and the comparison's per-level lists evaluate each anyway.
 */
const family = families.get("interphyre");
const quick = (extra: Record<string, unknown> = {}) =>
  parseRunConfig(
    { levels: ["catapult", "pass_the_parcel"], agent: "heuristic", evolver: "heuristic", rounds: 17, episodesPerRound: 3, ...extra },
    "t",
    families.all(),
  );

describe("held-out seeds per level", () => {
  it("--seeds reads one list for every level or one per level, and names what is wrong", () => {
    expect(seedList("60,61,61")).toEqual([60, 61]);
    expect(seedList("catapult=60,61;pass_the_parcel=70")).toEqual({ catapult: [60, 61], pass_the_parcel: [70] });
    expect(() => seedList("catapult=60;catapult=61")).toThrow(/catapult is given twice/);
    expect(() => seedList("catapult=60=61")).toThrow(/LEVEL=S,S;LEVEL=S/);
    expect(() => seedList("catapult=x")).toThrow(ConfigError);
  });

  it("plays a level's own list, leaves out a level not named, and refuses a seed that level saw or a level the run lacks", () => {
    const cfg = quick();
    const plan = schedule(cfg, family);
    const free = (level: string) => plan.get(level)!.heldOut.filter((s) => !plan.get(level)!.seen.has(s));
    const [c] = free("catapult");
    const [p] = free("pass_the_parcel");
    expect(heldOutSeeds(cfg, family, { seeds: { catapult: [c!], pass_the_parcel: [p!] }, count: 1 })).toEqual(
      new Map([
        ["catapult", [c]],
        ["pass_the_parcel", [p]],
      ]),
    );
    expect(heldOutSeeds(cfg, family, { seeds: { catapult: [c!] }, count: 1 }).get("pass_the_parcel")).toEqual([]);
    const seen = [...plan.get("pass_the_parcel")!.seen][0]!;
    expect(() => heldOutSeeds(cfg, family, { seeds: { pass_the_parcel: [seen] }, count: 1 })).toThrow(/were seen while learning on pass_the_parcel/);
    expect(() => heldOutSeeds(cfg, family, { seeds: { keyhole: [1] }, count: 1 })).toThrow(/keyhole is not a level of this run/);
  });

  it("a comparison gets a list per level, unseen by every cell there, even where no seed is unseen on both levels", () => {
    const cfgs = [quick(), quick({ init: "online" })];
    const held = sharedHeldOut(cfgs, family, 5);
    const common = held.catapult!.filter((s) => held.pass_the_parcel!.includes(s));
    expect(held.catapult).toHaveLength(5);
    expect(held.pass_the_parcel).toHaveLength(5);
    for (const level of ["catapult", "pass_the_parcel"]) {
      for (const c of cfgs) for (const s of held[level]!) expect(schedule(c, family).get(level)!.seen.has(s)).toBe(false);
    }
    expect(common.length).toBeLessThan(5);
    expect(heldOutArg(held)).toBe(`catapult=${held.catapult!.join(",")};pass_the_parcel=${held.pass_the_parcel!.join(",")}`);
  });
});
