import { createAppContext } from "../../src/app/context.ts";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify as toYaml } from "yaml";
import { ConfigError } from "../../src/errors.ts";
import { checkRunConfig } from "../../src/app/run-check.ts";
import { configDigest, runDirConfig } from "../../src/app/run-setup.ts";
import { parseRunConfig, parseRunConfigYaml } from "../../src/loop/run-config.ts";
import { SearchConfig, searchBudget } from "../../src/search/config.ts";
import { RunDir } from "../../src/store/run-dir.ts";

/** The shipped families, as hexa has them with no HEXA_FAMILIES. */
const { families } = await createAppContext({});

// The families are built once, as the CLI builds them before a command reads them.
await families.load();

/** Configs written before `method` and `search:` (rewardSearch.strategy, .budget, .eureka, .rfAgent) still read and resume. */
const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

const OLD = {
  family: "reward-search",
  levels: ["cartpole"],
  agent: "heuristic",
  evolver: "heuristic",
  rewardSearch: { trainSteps: 100, checkTransitions: 320, strategy: "rf-agent", budget: 6, eureka: { samples: 4 }, rfAgent: { initial: 2, children: 3 } },
};
const parse = (raw: unknown) => parseRunConfig(raw, "rs.yaml", families.all());

describe("old reward-search configs", () => {
  it("move rewardSearch.strategy to method and budget / eureka / rfAgent under search", () => {
    const c = parse(OLD) as Record<string, any>;
    expect(c.method).toBe("rf-agent");
    expect(c.search).toEqual({
      budget: 6,
      eureka: { samples: 4 },
      rfAgent: { initial: 2, children: 3, lambdaStart: 0.4, lambdaEnd: 0.1, eta: 0.7, sharedInitial: false, debugTries: 3 },
      p2p: { configs: 3, trainSeeds: 2, maxIterations: 20, plateau: 3 },
    });
    expect(c.rewardSearch).toMatchObject({ trainSteps: 100, checkTransitions: 320 });
    for (const k of ["strategy", "budget", "eureka", "rfAgent"]) expect(c.rewardSearch).not.toHaveProperty(k);
    // the same config written the new way reads the same
    const { strategy, budget, eureka, rfAgent, ...rest } = OLD.rewardSearch;
    expect(parse({ ...OLD, method: strategy, search: { budget, eureka, rfAgent }, rewardSearch: rest })).toEqual(c);
  });

  it("refuse a key given both ways, naming it", () => {
    expect(() => parse({ ...OLD, method: "eureka" })).toThrow(
      /^rs\.yaml: rewardSearch\.strategy: moved to method \(got both, "rf-agent" and "eureka"\); drop rewardSearch\.strategy$/,
    );
    expect(() => parse({ ...OLD, search: { budget: 3 } })).toThrow(ConfigError);
    expect(() => parse({ ...OLD, rewardSearch: { strategy: "greedy" } })).toThrow(/method: .*\(got "greedy"\)/);
  });

  it("resume: a run directory whose config.yaml has the old keys keeps its config hash", () => {
    const root = mkdtempSync(join(tmpdir(), "hexa-old-rs-"));
    roots.push(root);
    const yaml = toYaml(OLD);
    const digest = configDigest(yaml);
    const dir = RunDir.create(root, "cartpole__rf-agent-heuristic__s0__x", yaml, new Date(0), {
      configHash: digest.hash,
      config: digest.config,
      code: { version: "0", commit: null },
    });
    const notes: string[] = [];
    const cfg = runDirConfig(families, RunDir.open(dir.path), "config.yaml", (l: string) => notes.push(l));
    expect(cfg.method).toBe("rf-agent");
    expect(cfg.search.budget).toBe(6);
    expect(notes).toEqual([]);
  });

  it("a family without a whole search refuses method eureka or rf-agent", () => {
    const cfg = parse({ levels: ["catapult"], agent: "heuristic", evolver: "heuristic", method: "eureka" });
    expect(() => checkRunConfig(families, cfg, "c.yaml")).toThrow(
      /^c\.yaml: method: the interphyre family has no whole search \(got eureka\); use method: rounds$/,
    );
  });
});

describe("presets with the published budgets, beside the small defaults", () => {
  const load = (path: string) => {
    const c = parseRunConfigYaml(readFileSync(path, "utf8"), path, families.all());
    checkRunConfig(families, c, path); // the family runs it: its levels exist and it has the whole search
    return c;
  };

  it("configs/eureka-paper.yaml: K 16 × I 5 = 80 candidates per task", () => {
    const c = load("configs/eureka-paper.yaml");
    expect([c.family, c.method, c.agent]).toEqual(["reward-search", "eureka", "hexa"]);
    expect([c.search.eureka.samples, c.search.eureka.iterations, searchBudget("eureka", c.search)]).toEqual([16, 5, 80]);
  });

  it("configs/rf-agent-paper.yaml: 6 initial designs, expansions of 8, 80 nodes per task", () => {
    const c = load("configs/rf-agent-paper.yaml");
    expect([c.family, c.method, c.agent]).toEqual(["reward-search", "rf-agent", "hexa"]);
    expect(searchBudget("rf-agent", c.search)).toBe(80);
    expect(c.search.rfAgent).toEqual({ initial: 6, children: 8, lambdaStart: 0.4, lambdaEnd: 0.1, eta: 0.7, sharedInitial: false, debugTries: 8 });
  });

  it("the defaults stay small: 16 candidates, Eureka K 4, RF-Agent 4 initial", () => {
    const d = SearchConfig.parse({});
    expect([searchBudget("eureka", d), searchBudget("rf-agent", d), d.eureka.samples, d.rfAgent.initial, d.rfAgent.children]).toEqual([16, 16, 4, 4, 8]);
  });
});
