import { afterEach, describe, expect, it } from "vitest";
import { P2pConfig } from "../../../src/search/p2p-config.ts";
import type { CorrectionRecord } from "../../../src/search/p2p-corrections.ts";
import { memoryP2pLog } from "../../../src/search/p2p-log.ts";
import type { Reviser } from "../../../src/search/p2p-ports.ts";
import { runP2p } from "../../../src/search/p2p.ts";
import type { ScriptItem } from "../../../test/support/fake-openai-server.ts";
import { expectGolden } from "../../../test/support/golden.ts";
import { scriptedRole } from "../../../test/support/scripted-role.ts";
import { fitnessCheckpointJudge } from "../search/p2p-fitness-judge.ts";
import { p2pTrainer, ppoHpSpace } from "../search/p2p-trainer.ts";
import { getTask } from "../tasks/index.ts";
import type { RewardTask, TaskInstance } from "../task.ts";
import type { JobResult } from "../trainer/client.ts";
import type { PoolJob, PoolOutcome } from "../trainer/pool.ts";
import { HEURISTIC_CORRECTION_HOW, heuristicReviser } from "./p2p-heuristic-reviser.ts";
import { llmReviser } from "./p2p-llm-reviser.ts";

/**
 * The user's corrections reaching the p2p revisers: the LLM reviser's prompt carries them (a golden file), its
 * answer must say how it addresses each (refused and asked again otherwise), and the heuristic reviser records
 * that it cannot read words.
 */
const fake = scriptedRole("actor", 3000);
afterEach(() => fake.close());

const task = getTask("cartpole");
const code = (k: number) =>
  `function reward(obs, action, nextObs, info) {\n  const alive = ${k};\n  const upright = -Math.abs(nextObs.theta);\n  return { total: alive + upright, components: { alive, upright } };\n}`;
const json = (x: unknown): ScriptItem => ({ text: JSON.stringify(x) });

/** A pool whose F is 100 for every reward: the search never passes on its own. */
const pool = {
  train: async (job: PoolJob): Promise<PoolOutcome> => {
    const result: JobResult = {
      final: { fitness: 100, perSeed: job.evalSeeds.map((seed) => ({ seed, fitness: 100 })) },
      bestCheckpoint: { fitness: 100, step: 1000 },
      components: { alive: [{ step: 1000, mean: 1, min: 1, max: 1 }] },
      episodeLength: [{ step: 1000, mean: 20 }],
      fitnessCurve: [500, 1000].map((step) => ({ step, fitness: (100 * step) / 1000 })),
      steps: 1000,
      wallMs: 1,
      policy: "policy.json",
    };
    return { kind: "result", result, cached: false, jobDir: null };
  },
};

const correction: CorrectionRecord = {
  schemaVersion: 1,
  index: 0,
  iteration: 1,
  afterIteration: 0,
  text: "keep the cart near the centre",
  at: "2026-12-07T02:00:00.000Z",
};

/** One iteration (the cap), then a correction, then the search again: it plans iteration 1 to address it. */
const searchCorrected = async (reviser: Reviser<RewardTask, TaskInstance>) => {
  const log = memoryP2pLog();
  const run = () =>
    runP2p({
      task,
      instance: task.generate(1),
      seed: 1,
      source: task.id,
      reviser,
      trainer: p2pTrainer(pool, 1000),
      judge: fitnessCheckpointJudge(),
      space: ppoHpSpace(task),
      log,
      budget: 4,
      config: P2pConfig.parse({ configs: 1, trainSeeds: 1, maxIterations: 1 }),
    });
  expect((await run()).iterations).toHaveLength(1);
  log.addCorrection(correction);
  return run();
};

describe("p2p revisers and the user's corrections", () => {
  it("the LLM reviser is shown every outstanding correction and must say how it addresses each", async () => {
    const revision = {
      diagnosis: "the cart drifts",
      lesson: "Penalise the cart's distance from the centre.",
      basedOn: 0,
      rewardChanges: ["add a centre term"],
      structural: false,
      noChange: false,
      code: code(2),
      hpChanges: {},
    };
    const model = await fake.modelFor([
      json({ thought: "Stay alive.", code: code(1) }),
      json(revision),
      json({ ...revision, corrections: [{ correction: 0, how: "a term −|x| keeps the cart near the centre" }] }),
    ]);
    const r = await searchCorrected(llmReviser(model));
    const user = (i: number) => String(fake.requests[i]!.body.messages.at(-1)!.content);
    expectGolden("p2p-revision-corrections.txt", `${user(1)}\n`);
    // The answer that ignores the correction is shown its problem, naming the field, and answered again.
    expect(user(2)).toMatch(/corrections: correction 0 not addressed/);
    expect(r.iterations).toHaveLength(2);
    expect(r.plans[1]!.revision.corrections).toEqual([{ correction: 0, how: "a term −|x| keeps the cart near the centre", addressed: true }]);
  });

  it("the heuristic reviser records that it cannot read words, and each later plan is asked again", async () => {
    const r = await searchCorrected(heuristicReviser());
    expect(r.plans[1]!.revision.corrections).toEqual([{ correction: 0, how: HEURISTIC_CORRECTION_HOW, addressed: false }]);
    expect(HEURISTIC_CORRECTION_HOW).toMatch(/^not addressed: the heuristic reviser \(no LLM\) cannot read words/);
  });
});
