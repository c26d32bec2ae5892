import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { foldEvents } from "../../src/store/bank.ts";
import { RunDir } from "../../src/store/run-dir.ts";
import { parseRunConfig, runConfigYaml } from "../../src/loop/run-config.ts";
import { runLoop } from "../../src/loop/run-loop.ts";
import type { PoolJob, TrainerPool } from "./trainer/pool.ts";
import { rewardActionOf } from "./action.ts";
import { rewardSearchFamily } from "./family.ts";
import { getTask } from "./tasks/index.ts";

/**
 * The reward-search family in the round loop for every init × update cell, with an in-process trainer whose F
 * is a deterministic function of the job (mechanisms, not learning): episodes, the designer's bank and the
 * evolver's events for each cell; the PPO trainer itself is tested in src/trainer and through hexa run elsewhere.
 */
const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

/** F in [0, 500] from the code and steps, high when the design keeps the "upright" term. */
const fakeTrainer = (): TrainerPool & { jobs: PoolJob[] } => {
  const jobs: PoolJob[] = [];
  return {
    jobs,
    sent: 0,
    hello: async () => ({ type: "hello", protocol: 1, trainer: { name: "fake", version: "1" }, tasks: [], concurrency: 1 }) as never,
    close: async () => {},
    train: async (job) => {
      jobs.push(job);
      const h = createHash("sha256").update(`${job.reward}|${job.steps}|${job.seed}`).digest()[0]!;
      const fitness = (job.reward.includes("upright") ? 400 : 0) + (h % 100);
      const result = {
        final: { fitness, perSeed: job.evalSeeds.map((seed) => ({ seed, fitness })) },
        bestCheckpoint: { fitness: fitness + 1, step: job.steps },
        components: { alive: [{ step: job.steps, mean: 1, min: 0, max: 1 }] },
        episodeLength: [{ step: job.steps, mean: 100 }],
        fitnessCurve: [{ step: job.steps, fitness }],
        steps: job.steps,
        wallMs: 1,
        policy: "policy.json",
      };
      return { kind: "result", result, cached: false, jobDir: null };
    },
  };
};

const CELLS = [
  { init: "offline", update: "static" },
  { init: "off2on", update: "static" },
  { init: "off2on", update: "replacement" },
  { init: "off2on", update: "evolving" },
  { init: "online", update: "static" },
  { init: "online", update: "replacement" },
  { init: "online", update: "evolving" },
] as const;

describe.each(CELLS)("the reward-search family in the loop, $init × $update", (cell) => {
  it("plays every episode with the heuristic designer, trains each candidate once on its own code and the instance's seeds, and updates the bank as the cell says", async () => {
    const trainer = fakeTrainer();
    const family = rewardSearchFamily(() => trainer);
    const cfg = parseRunConfig(
      {
        family: "reward-search",
        levels: ["cartpole"],
        agent: "heuristic",
        evolver: "heuristic",
        ...cell,
        rounds: 3,
        episodesPerRound: 2,
        offline: { episodes: 2 },
        actor: { maxTurns: 4 },
        rewardSearch: { trainSteps: 100, finishSteps: 400 },
      },
      "cell",
      [family],
    );
    const root = mkdtempSync(join(tmpdir(), "hexa-rs-cell-"));
    roots.push(root);
    const dir = RunDir.create(root, `${cell.init}-${cell.update}`, runConfigYaml(cfg, [family]), new Date());
    const metrics = await runLoop(cfg, { family, dir, now: () => 0 });
    const eps = dir.episodes();
    expect(eps.filter((e) => e.phase === "stream")).toHaveLength(6);
    expect(eps.filter((e) => e.phase === "offline")).toHaveLength(cell.init === "online" ? 0 : 2);
    const task = getTask("cartpole");
    for (const e of eps) {
      const a = rewardActionOf(e.trajectory.action);
      expect(a?.code).toMatch(/function reward/);
      expect(e.trajectory.success).toBe((e.trajectory.score ?? -1) >= task.fitness.solved);
      const inst = task.generate(e.seed);
      const mine = trainer.jobs.filter((j) => (j.instance as { seed: number }).seed === e.seed);
      expect(mine.length).toBeGreaterThan(0);
      for (const j of mine) {
        expect(j).toMatchObject({ task: "cartpole", seed: inst.trainSeed, evalSeeds: inst.evalSeeds });
        expect(j.evalSeeds).not.toContain(j.seed);
      }
      // The committed code is the one the scored (finish) training ran on.
      if (e.trajectory.stopReason === "finish") expect(mine.some((j) => j.steps === 400 && j.reward === a!.code)).toBe(true);
    }
    const log = dir.bankLog().events.get("cartpole") ?? [];
    const final = foldEvents(log);
    if (cell.update === "static" && cell.init !== "online") expect(log.every((e) => e.round === 0)).toBe(true);
    if (cell.update === "evolving") expect(new Set(log.map((e) => e.round)).size).toBeGreaterThan(1);
    expect(final.skills.length + final.mistakes.length).toBeGreaterThan(0);
    for (const e of [...final.skills, ...final.mistakes]) expect(e.payload?.design).toBeTruthy();
    expect(metrics.levels.cartpole!.episodes).toBe(6);
  });
});
