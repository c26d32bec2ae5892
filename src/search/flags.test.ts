import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError, InvariantError } from "../errors.ts";
import { headerOptions, SearchConfig } from "./config.ts";
import { configFromFlags as fromFlags, schemaFlags } from "../cli-kit/schema-flags.ts";
import { searchFlags } from "./flags.ts";

const configFromFlags = (...a: [typeof SearchConfig, ReturnType<typeof searchFlags>, Record<string, unknown>]) => fromFlags(...a, "hexa search --help");

describe("flags derived from the search slice's schema", () => {
  it("one flag per knob, named, typed and described by the schema, the section in front", () => {
    const flags = searchFlags();
    expect(flags.map((f) => f.name)).toEqual([
      "budget",
      "samples",
      "iterations",
      "initial",
      "children",
      "lambda-start",
      "lambda-end",
      "eta",
      "shared-initial",
      "debug-tries",
      "configs",
      "train-seeds",
      "max-iterations",
      "plateau",
      "pass-threshold",
    ]);
    expect(flags.filter((f) => f.type !== "number").map((f) => [f.name, f.type])).toEqual([["shared-initial", "boolean"]]);
    expect(flags.find((f) => f.name === "samples")).toMatchObject({
      path: ["eureka", "samples"],
      describe: "eureka: K: candidates sampled and evaluated per iteration (default 4)",
    });
    expect(flags.find((f) => f.name === "lambda-start")!.describe).toMatch(/^rf-agent: λ.* \(default 0\.4\)$/);
    expect(flags.find((f) => f.name === "debug-tries")).toMatchObject({
      path: ["rfAgent", "debugTries"],
      describe: expect.stringMatching(/^rf-agent: re-debug: .*\(default 3\)$/),
    });
  });

  it("an enum gives choices; two fields with one flag name are a bug", () => {
    expect(schemaFlags(z.object({ mode: z.enum(["a", "b"]).describe("m") }))).toEqual([
      { name: "mode", path: ["mode"], type: "string", choices: ["a", "b"], describe: "m" },
    ]);
    expect(() => schemaFlags(z.object({ a: z.object({ n: z.number() }), b: z.object({ n: z.number() }) }))).toThrow(InvariantError);
  });

  it("the flags given become the config (defaults for the rest); a bad value names its flag", () => {
    const { config, given } = configFromFlags(SearchConfig, searchFlags(), { samples: 2, "lambda-end": 0.2, seed: "7" });
    expect(config).toEqual(SearchConfig.parse({ eureka: { samples: 2 }, rfAgent: { lambdaEnd: 0.2 } }));
    expect(given).toEqual({ samples: 2, lambdaEnd: 0.2 });
    expect(configFromFlags(SearchConfig, searchFlags(), { "debug-tries": 0 }).config.rfAgent.debugTries).toBe(0);
    expect(() => configFromFlags(SearchConfig, searchFlags(), { "debug-tries": -1 })).toThrow(/^--debug-tries: .* \(got -1\)/);
    expect(() => configFromFlags(SearchConfig, searchFlags(), { children: 0 })).toThrow(ConfigError);
    expect(() => configFromFlags(SearchConfig, searchFlags(), { children: 0 })).toThrow(/^--children: .* \(got 0\); see hexa search --help$/);
    expect(() => configFromFlags(SearchConfig, searchFlags(), { budget: 16, samples: 4, iterations: 3 })).toThrow(
      /^--iterations: K × I = 12 differs from search\.budget 16/,
    );
  });

  it("search.json records debugTries only when it is not the default, so searches made before it was a knob resume", () => {
    expect(headerOptions("rf-agent", SearchConfig.parse({}))).toEqual({ initial: 4, children: 8 });
    expect(headerOptions("rf-agent", SearchConfig.parse({ rfAgent: { debugTries: 0 } }))).toEqual({ initial: 4, children: 8, debugTries: 0 });
  });
});
