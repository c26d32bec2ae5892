import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tinyRewardConfig } from "../support/tiny-reward-run.ts";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { hexa, ROOT } from "../support/hexa-cli.ts";
import { tempDirs } from "../support/temp-files.ts";
import { runIn, searchArgs } from "../verify/verify-support.ts";
import { editYaml, forgeBundle } from "./forge-bundle.ts";

/**
 * Reward-search bundles whose config.yaml (a run) or search-config.json (a search) name a trainer command, a trainer
 * cache and a jobs folder of the author's choosing (docs/security.md, "A stranger's run or bundle"): hexa verify
 * --retrain trains with the reader's trainer, never the bundle's, and makes none of the folders.
 */
const tmp = tempDirs("hexa-hostile-verify-trainer-");
let runBundle = "";
let searchBundle = "";
let canary = "";
let payload: string[] = [];
let named = "";

beforeAll(async () => {
  const dir = tmp();
  const cfg = join(dir, "rs.yaml");
  writeFileSync(cfg, tinyRewardConfig(`cacheDir: ${join(dir, "cache")}, jobsDir: ${join(dir, "jobs")}`));
  const search = join(dir, "search");
  const [run, searched] = await Promise.all([hexa(["run", cfg, "--runs-dir", join(dir, "runs")]), hexa(searchArgs(search, join(dir, "cache")))]);
  expect(run.status, run.stderr).toBe(0);
  expect(searched.status, searched.stderr).toBe(0);
  runBundle = join(dir, "run.tar.gz");
  searchBundle = join(dir, "search.tar.gz");
  const packed = await Promise.all([hexa(["bundle", runIn(join(dir, "runs")), "-o", runBundle]), hexa(["bundle", search, "-o", searchBundle])]);
  for (const p of packed) expect(p.status, p.stderr).toBe(0);
  const scratch = tmp();
  canary = join(scratch, "the-bundle-ran-me");
  const script = join(scratch, "payload.mjs");
  writeFileSync(script, `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(canary)}, "ran");\nprocess.exit(1);\n`);
  payload = [process.execPath, script];
  named = join(scratch, "named-by-the-bundle");
}, 300_000);

const expectNothingOfTheBundles = (all: string) => {
  expect(existsSync(canary), all).toBe(false);
  expect(existsSync(named)).toBe(false);
};

describe("hexa verify --retrain of a forged reward-search bundle", () => {
  it("a run bundle's trainer.command, cacheDir and jobsDir: the built-in trainer retrains, F matches exactly, nothing the bundle names runs or is made", async () => {
    const forged = await forgeBundle(runBundle, tmp(), (root) =>
      editYaml(join(root, "config.yaml"), (c) => {
        c.rewardSearch.trainer = { ...c.rewardSearch.trainer, command: payload };
        c.rewardSearch.cacheDir = join(named, "cache");
        c.rewardSearch.jobsDir = join(named, "jobs");
      }),
    );
    const r = await hexa(["verify", forged, "--retrain", "1", "--retrain-seed", "2"]);
    const all = `${r.stdout}${r.stderr}`;
    expect(r.status, all).toBe(0);
    expect(r.stdout).toMatch(/^identical: 2 episodes/);
    expect(r.stderr).toMatch(/retraining 1 of \d+ recorded trainings \(seed 2\) with the built-in trainer; F must match exactly/);
    expect(r.stderr).toContain("rewardSearch.trainer.command = ");
    expectNothingOfTheBundles(all);
  }, 240_000);

  it("a search bundle's settings.rewardSearch.trainer.command and folders: the same", async () => {
    const forged = await forgeBundle(searchBundle, tmp(), (root) => {
      const path = join(root, "search-config.json");
      const record = JSON.parse(readFileSync(path, "utf8"));
      record.settings.rewardSearch = {
        ...record.settings.rewardSearch,
        trainer: { command: payload },
        cacheDir: join(named, "cache"),
        jobsDir: join(named, "jobs"),
      };
      writeFileSync(path, JSON.stringify(record, null, 2));
    });
    const r = await hexa(["verify", forged, "--retrain", "1", "--retrain-seed", "2"]);
    const all = `${r.stdout}${r.stderr}`;
    expect(r.status, all).toBe(0);
    expect(r.stdout).toMatch(/^identical: 2 candidates/);
    expect(r.stderr).toMatch(/with the built-in trainer; F must match exactly/);
    expectNothingOfTheBundles(all);
  }, 240_000);

  it("--trainer-command is the reader's own trainer: it is the one run (here the built-in script named by hand), F within 0.05", async () => {
    const r = await hexa([
      "verify",
      runBundle,
      "--retrain",
      "1",
      "--retrain-seed",
      "2",
      "--trainer-command",
      `${process.execPath} ${join(ROOT, "bin/hexa-trainer.js")}`,
    ]);
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    expect(r.stderr).toMatch(/with your trainer command \(--trainer-command\); F must match within 0\.05/);
  }, 240_000);
});
