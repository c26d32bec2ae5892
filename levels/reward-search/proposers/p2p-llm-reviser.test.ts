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
import { MAX_TOOL_ROUNDS } from "./p2p-reviser-tools.ts";
import { TOOL_CAP_NOTE } from "./p2p-llm-reviser.ts";
import { expectGolden } from "../../../test/support/golden.ts";

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

/** A small search (one configuration, one seed per iteration) with the LLM reviser on `model`. */
const smallSearch = (model: Parameters<typeof llmReviser>[0], budget: number) => {
  const log = memoryP2pLog();
  const result = runP2p({
    task,
    instance: task.generate(1),
    seed: 1,
    source: task.id,
    reviser: llmReviser(model),
    trainer: p2pTrainer(pool(), 1000),
    judge: fitnessCheckpointJudge(),
    space: ppoHpSpace(task),
    log,
    budget,
    config: P2pConfig.parse({ configs: 1, trainSeeds: 1 }),
  });
  return { log, result };
};

/** A request as text: each message by role (tool calls and results included), then the tools offered with their schemas. */
const requestText = (body: (typeof fake.requests)[number]["body"]): string =>
  [
    ...body.messages.map((m) => `## ${String(m.role)}\n${String(m.content ?? "")}`),
    "## tools",
    ...(body.tools ?? []).map((t) => `${t.function.name}: ${t.function.description}\n${JSON.stringify(t.function.parameters)}`),
  ].join("\n\n");

describe("the LLM reviser's tools", () => {
  it("reads the lineage, is refused a bad iteration naming the range, and changes a lesson's tier as a bank event", async () => {
    const tierCall = { name: "set_lesson_tier", args: { id: "l1_1", to: "SOFT", reason: "iteration 1 did worse than iteration 0 with it" } };
    const model = await fake.modelFor([
      json({ thought: "Stay alive.", code: code(1) }),
      revision({}),
      { toolCalls: [{ name: "lessons", args: {} }, { name: "reward_code", args: { iteration: 7 } }, tierCall] },
      { toolCalls: [{ name: "reward_diff", args: { from: 0, to: 1 } }] },
      revision({ basedOn: 0, rewardChanges: ["alive 3"], code: code(3) }),
    ]);
    const { log, result } = smallSearch(model, 3);
    const r = await result;
    expect(r.iterations).toHaveLength(3);
    // Each revision request offers the tools; the first one, whole (a golden file).
    expect(fake.requests[1]!.body.tools?.map((t) => t.function.name)).toEqual([
      "lineage",
      "reward_code",
      "reward_diff",
      "checkpoints",
      "training",
      "judgment",
      "configs",
      "lessons",
      "set_lesson_tier",
    ]);
    expectGolden("p2p-revision-tools.txt", `${requestText(fake.requests[1]!.body)}\n`);
    // The tool results go back to the model: the read, the refusal naming the field and range, the change recorded.
    const results = fake.requests[3]!.body.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
    expect(results[0]).toBe("- l1_1 [STRONG] (cartpole, p2p iteration 0): Keep the alive weight at 1.");
    expect(results[1]).toBe("refused: iteration: must be one of this search's judged iterations, 0–1 (got 7)");
    expect(results[2]).toBe("recorded: lesson l1_1 STRONG → SOFT; it applies to the bank with this iteration's plan");
    expect(String(fake.requests[4]!.body.messages.at(-1)!.content)).toContain("-  const alive = 1;\n+  const alive = 2;");
    expect(r.plans[2]!.revision.tierChanges).toEqual([{ id: "l1_1", from: "STRONG", to: "SOFT", reason: tierCall.args.reason }]);
    expect(log.bankEvents().filter((e) => e.type === "lesson_tier_changed")).toEqual([
      expect.objectContaining({ round: 2, id: "l1_1", from: "STRONG", to: "SOFT", reason: tierCall.args.reason, by: "p2p reviser" }),
    ]);
  });

  it(`after ${MAX_TOOL_ROUNDS} tool rounds is told so and asked for its answer, without tools`, async () => {
    const model = await fake.modelFor([
      json({ thought: "Stay alive.", code: code(1) }),
      ...Array.from({ length: MAX_TOOL_ROUNDS }, (): ScriptItem => ({ toolCalls: [{ name: "lineage", args: {} }] })),
      revision({}),
    ]);
    const r = await smallSearch(model, 2).result;
    expect(fake.requests).toHaveLength(2 + MAX_TOOL_ROUNDS);
    const last = fake.requests.at(-1)!.body;
    expect(last.messages.at(-1)!.content).toBe(TOOL_CAP_NOTE);
    expect(last.tools ?? []).toEqual([]);
    expect(r.plans[1]!.code).toBe(code(2));
  });
});
