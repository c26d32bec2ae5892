import { afterEach, describe, expect, it } from "vitest";
import type { ScriptItem } from "../../../test/support/fake-openai-server.ts";
import { scriptedRole } from "../../../test/support/scripted-role.ts";
import { P2pConfig } from "../../../src/search/p2p-config.ts";
import { memoryP2pLog } from "../../../src/search/p2p-log.ts";
import { runP2p } from "../../../src/search/p2p.ts";
import { getTask } from "../tasks/index.ts";
import type { JobResult } from "../trainer/client.ts";
import type { PoolJob, PoolOutcome } from "../trainer/pool.ts";
import { fitnessCheckpointJudge } from "../search/p2p-fitness-judge.ts";
import { p2pTrainer, ppoHpSpace } from "../search/p2p-trainer.ts";
import { llmReviser } from "./p2p-llm-reviser.ts";
import { plateauWarning } from "./p2p-prompts.ts";

/** The p2p strategy with the LLM reviser, through the real client against the local OpenAI-compatible server. */
const fake = scriptedRole("actor", 3000);
afterEach(() => fake.close());

const task = getTask("cartpole");
const code = (k: number) =>
  `function reward(obs, action, nextObs, info) {\n  const alive = ${k};\n  const upright = -Math.abs(nextObs.theta);\n  return { total: alive + upright, components: { alive, upright } };\n}`;
const json = (x: unknown): ScriptItem => ({ text: JSON.stringify(x) });

/** F by the reward's alive weight, plus 10 for a learning rate of 0.0005 (so iteration 0's best configuration is its variant). */
const pool = () => {
  const jobs: PoolJob[] = [];
  return {
    jobs,
    train: async (job: PoolJob): Promise<PoolOutcome> => {
      jobs.push(job);
      const f =
        ({ 1: 200, 2: 100, 3: 150 } as Record<string, number>)[/const alive = (\d)/.exec(job.reward)?.[1] ?? ""]! + (job.ppo?.learningRate === 0.0005 ? 10 : 0);
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
};

const revision = (o: Record<string, unknown>) =>
  json({
    diagnosis: "d",
    lesson: "Keep the alive weight at 1.",
    basedOn: 0,
    rewardChanges: ["alive 2"],
    structural: false,
    noChange: false,
    code: code(2),
    hpChanges: {},
    ...o,
  });

describe("p2p with the LLM reviser", () => {
  it("retries a revision that leaves the HP bounds, branches with the parent's HPs, and shows the plateau warning", async () => {
    const model = await fake.modelFor([
      json({ thought: "Stay alive.", code: code(1) }),
      json({ hpChanges: { learningRate: [0.00025, 0.0005] } }),
      revision({ hpChanges: { learningRate: [0.0005, 0.5] } }),
      revision({ hpChanges: { learningRate: [0.0005, 0.001] } }),
      json({ hpChanges: { entCoef: [0.01, 0.02] } }),
      revision({ basedOn: 0, structural: true, rewardChanges: ["a rewrite"], code: code(3) }),
      { text: "no JSON" },
      { text: "still no JSON" },
    ]);
    const trainer = pool();
    const r = await runP2p({
      task,
      instance: task.generate(1),
      seed: 1,
      source: task.id,
      reviser: llmReviser(model),
      trainer: p2pTrainer(trainer, 1000),
      judge: fitnessCheckpointJudge(),
      space: ppoHpSpace(task),
      log: memoryP2pLog(),
      budget: 6,
      config: P2pConfig.parse({ configs: 2, trainSeeds: 1, plateau: 1 }),
    });
    expect(trainer.jobs).toHaveLength(6);
    expect(r.iterations.map((i) => i.best)).toEqual([1, 0, 0]);
    const user = (i: number) => String(fake.requests[i]!.body.messages.at(-1)!.content);
    // The out-of-bounds answer is shown its problem, naming the field, and answered again.
    expect(user(3)).toMatch(/hpChanges\.learningRate: 0\.5 is outside its bounds/);
    expect(r.plans[1]!.configs[0]!.hp.learningRate).toBe(0.001);
    // Iteration 2 builds on iteration 0 with iteration 0's best HPs (its variant's learning rate), not iteration 1's.
    expect(r.plans[2]!.parent).toBe(0);
    expect(r.plans[2]!.configs[0]!.hp.learningRate).toBe(0.0005);
    expect(r.plans[2]!.revision.plateau).toBe(true);
    // The plateau prompt, whole (a golden file).
    const plateauPrompt = user(5);
    expect(plateauPrompt).toContain(plateauWarning(1));
    await expect(plateauPrompt).toMatchFileSnapshot("fixtures/p2p-plateau-prompt.txt");
    // An unusable variant changes nothing.
    expect(r.plans[2]!.configs[1]!.hp).toEqual(r.plans[2]!.configs[0]!.hp);
  });
});
