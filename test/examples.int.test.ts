import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { runConformance } from "../levels/reward-search/trainer/conformance.ts";
import { createAppContext } from "../src/app/context.ts";
import type { FamilyRegistry } from "../src/app/families.ts";
import { parseRunConfigYaml } from "../src/loop/run-config.ts";
import { hexa } from "./support/hexa-cli.ts";

/** examples/: each config parses as hexa run reads it, each is named in its README, the custom trainer conforms. */
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const QUESTIONS = join(ROOT, "examples/paper-questions");
const yamls = readdirSync(QUESTIONS).filter((f) => f.endsWith(".yaml"));

let families: FamilyRegistry;
beforeAll(async () => {
  ({ families } = await createAppContext({ HEXA_FAMILIES: join(ROOT, "examples/toy-family/family.ts") }));
  await families.load();
});

describe("the examples", () => {
  it("has a config per question of the paper, each parsed by hexa run's schema and named in the README", () => {
    expect(yamls.sort()).toEqual(["bank-vs-baselines.yaml", "init-update.yaml", "reward-labels.yaml", "search-strategies.yaml", "transfer.yaml"]);
    const readme = readFileSync(join(QUESTIONS, "README.md"), "utf8");
    for (const f of yamls) {
      const path = join(QUESTIONS, f);
      const cfg = parseRunConfigYaml(readFileSync(path, "utf8"), path, families.all());
      expect(cfg.levels.length, f).toBeGreaterThan(0);
      expect(readme, f).toContain(`examples/paper-questions/${f}`);
    }
  });

  it("the toy family's config parses with the family added through HEXA_FAMILIES", () => {
    const path = join(ROOT, "examples/toy-family/toy.yaml");
    const cfg = parseRunConfigYaml(readFileSync(path, "utf8"), path, families.all());
    expect(cfg.family).toBe("toy");
    expect(cfg.levels).toEqual(["guess_small", "guess_large"]);
  });

  it("the custom trainer passes every check of the conformance suite", async () => {
    const trainer = join(ROOT, "examples/custom-trainer/trainer.ts");
    const checks = await runConformance({ command: [process.execPath, "--import", "tsx", trainer] });
    expect(checks.filter((c) => !c.ok)).toEqual([]);
    expect(checks).toHaveLength(9);
  });

  it("a run of a task the custom trainer does not serve is refused before it starts, naming both", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hexa-custom-trainer-"));
    const config = join(dir, "cartpole.yaml");
    const trainer = `[${process.execPath}, --import, tsx, ${join(ROOT, "examples/custom-trainer/trainer.ts")}]`;
    writeFileSync(
      config,
      `family: reward-search\nlevels: [cartpole]\nagent: heuristic\nevolver: heuristic\nrounds: 1\nepisodesPerRound: 1\nrewardSearch: {trainer: {command: ${trainer}}, cacheDir: ${dir}/cache, jobsDir: ${dir}/jobs}\n`,
    );
    const r = await hexa(["run", config, "--runs-dir", join(dir, "runs")]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^hexa: .*cartpole\.yaml: levels: the trainer reach-example 0\.1\.0 \(rewardSearch\.trainer\.command\) serves reach, not cartpole/,
    );
    expect(existsSync(join(dir, "runs"))).toBe(false);
  });
});
