import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { addCorrection, copyCorrections } from "../../../src/search/p2p-corrections.ts";
import { executeP2p } from "../cli/search-p2p.ts";
import { SearchSettings } from "../cli/search-settings.ts";
import { RewardSearchConfig } from "../config.ts";
import { heuristicReviser } from "../proposers/p2p-heuristic-reviser.ts";
import type { JobProgress, JobResult } from "../trainer/client.ts";
import type { PoolJob, PoolOutcome, PoolTrainOptions } from "../trainer/pool.ts";

/**
 * A p2p search with a correction, replayed as `hexa verify` replays it (levels/reward-search/verify/search-replay.ts):
 * the corrections copied from the lineage into a fresh folder, the search run there from the start. Each correction
 * reaches the plan it reached, so the lineage is identical; without them the replay stops where the search first did.
 */
const losses = { policyLoss: 0, valueLoss: 1, entropy: 0.5, approxKl: 0.05, clipFrac: 0.1, explainedVariance: 0.5 };

/** A trainer whose F grows with the reward's length, reporting losses like the built-in one. */
const pool = {
  train: async (job: PoolJob, opts: PoolTrainOptions = {}): Promise<PoolOutcome> => {
    for (let i = 0; i < 4; i++)
      opts.onProgress?.({ iteration: i, steps: (i + 1) * 250, fitness: null, episodeLength: null, components: {}, losses } as JobProgress);
    const f = job.reward.length % 200;
    const result: JobResult = {
      final: { fitness: f, perSeed: job.evalSeeds.map((seed) => ({ seed, fitness: f })) },
      bestCheckpoint: { fitness: f, step: 1000 },
      components: { alive: [{ step: 1000, mean: 1, min: 1, max: 1 }] },
      episodeLength: [{ step: 1000, mean: 20 }],
      fitnessCurve: [500, 1000].map((step) => ({ step, fitness: (f * step) / 1000 })),
      steps: 1000,
      wallMs: 1,
      policy: "policy.json",
    };
    return { kind: "result", result, cached: false, jobDir: null };
  },
};

const settings = SearchSettings.parse({
  method: "p2p",
  task: "cartpole",
  seed: 0,
  search: { budget: 3, p2p: { configs: 1, trainSeeds: 1, maxIterations: 1 } },
  options: {},
  trainSteps: 1000,
  finalTrainings: 1,
  finalSteps: 1000,
  rewardSearch: RewardSearchConfig.parse({}),
  proposer: "heuristic",
});

const search = async (out: string): Promise<string> => {
  let text = "";
  await executeP2p(settings, { out, reviser: heuristicReviser(), pool, stdout: (t) => void (text += t), stderr: (t) => void (text += t) });
  return text;
};

const lineage = (dir: string): Record<string, string> => {
  const files = [
    "corrections.jsonl",
    "plans.jsonl",
    "iterations.jsonl",
    "final-scores.json",
    ...readdirSync(join(dir, "trainings")).map((f) => join("trainings", f)),
  ];
  return Object.fromEntries(files.map((f) => [f, existsSync(join(dir, f)) ? readFileSync(join(dir, f), "utf8") : "(none)"]));
};

describe("a p2p search with a correction, replayed", () => {
  it("reads the correction from the lineage and writes the same lineage", async () => {
    const recorded = mkdtempSync(join(tmpdir(), "hexa-p2p-corrected-"));
    await search(recorded);
    addCorrection(recorded, "land softer", new Date("2026-12-07T02:00:00.000Z"));
    expect(await search(recorded)).toContain("it goes on to iteration 1 only because correction 0 was added since");
    expect(readFileSync(join(recorded, "plans.jsonl"), "utf8").split("\n").filter(Boolean)).toHaveLength(2);

    const replayed = mkdtempSync(join(tmpdir(), "hexa-p2p-replayed-"));
    expect(copyCorrections(recorded, replayed)).toBe(1);
    await search(replayed);
    expect(lineage(replayed)).toEqual(lineage(recorded));

    // Without the corrections the replay stops at the cap, as the search first did.
    const bare = mkdtempSync(join(tmpdir(), "hexa-p2p-bare-"));
    await search(bare);
    expect(lineage(bare)["plans.jsonl"]).not.toBe(lineage(recorded)["plans.jsonl"]);
  });
});
