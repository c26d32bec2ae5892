import { describe, expect, it } from "vitest";
import { createInstance } from "../levels/interphyre/instance.ts";
import { readCertified } from "../levels/interphyre/certified-seeds.ts";
import { toolSet } from "../levels/interphyre/tools/index.ts";
import { openInterphyreEnv } from "../levels/interphyre/task-env.ts";
import { call, ScriptedModel, type Scripted } from "../test/support/scripted-model.ts";
import { runActorEpisode } from "./actor.ts";
import { ActorConfig } from "./actor-config.ts";
import { Trajectory } from "../src/store/trajectory.ts";
import type { TaskEnv } from "../src/family/task-env.ts";

const certified = readCertified("two_body_problem")!.seeds[0]!;
const [sx, sy, sr] = certified.solution;
const solution = { x: sx, y: sy, radius: sr };
// The corner check of certification guarantees that this placement fails on every certified seed.
const miss = { x: -4.3, y: 4.3, radius: 0.1 };
const instance = createInstance("two_body_problem", certified.seed);

const run = async (script: Scripted[], config: Partial<ActorConfig> = {}, horizon = 2000) => {
  const model = new ScriptedModel(script);
  let clock = 0;
  const open = (maxTurns: number) => openInterphyreEnv({ level: instance.level, seed: instance.seed, horizon, toolSet: "extended", maxTurns });
  const t = await runActorEpisode(
    { open, config: ActorConfig.parse(config), agent: "react" },
    { model, costOf: (r) => r.usage.input * 1e-6, now: () => (clock += 5) },
  );
  expect(Trajectory.parse(t)).toEqual(t);
  return { t, model };
};

describe("the actor loop", () => {
  it("auto-finishes when a full rollout succeeds", async () => {
    const { t } = await run([
      { text: "look", toolCalls: [call("get_level_state", {})] },
      { text: "try", toolCalls: [call("simulate_action", solution)] },
    ]);
    expect(t).toMatchObject({ success: true, stopReason: "success", turns: 2, action: solution });
    expect(t.steps.map((s) => s.tool)).toEqual(["get_level_state", "simulate_action"]);
    expect(t.model).toBe("scripted-model-2026");
  });

  it("scores finish by a full rollout", async () => {
    const fail = await run([{ toolCalls: [call("finish", miss)] }]);
    expect(fail.t).toMatchObject({ success: false, stopReason: "finish", turns: 25, action: miss });
    const win = await run([{ toolCalls: [call("finish", solution)] }]);
    expect(win.t).toMatchObject({ success: true, stopReason: "finish", turns: 1 });
  });

  it("counts every kind of bad turn and runs out of budget", async () => {
    const { t, model } = await run(
      [
        { text: "I think the ball should go left." },
        { text: "" },
        { toolCalls: [call("simulate", { x: 0 })] },
        {
          toolCalls: [
            {
              id: "bad",
              name: "simulate_action",
              args: {},
              rawArgs: "{x: 1",
              argsError: "simulate_action: arguments are not valid JSON (Unexpected token x); send one JSON object",
            },
          ],
        },
        { toolCalls: [call("simulate_action", { x: "left", y: 0, radius: 0.3 })] },
        { toolCalls: [call("check_placement", miss), call("simulate_action", solution)] },
      ],
      { maxTurns: 6 },
    );
    expect(t).toMatchObject({ success: false, stopReason: "budget", turns: 6 });
    expect(t.steps.map((s) => s.ok)).toEqual([false, false, false, false, false, true]);
    expect(t.steps[0]!.observation).toMatch(/did not call a tool/);
    expect(t.steps[1]!.observation).toMatch(/^The response was empty/);
    expect(t.steps[2]!.observation).toMatch(/unknown tool 'simulate'; available: get_level_state/);
    expect(t.steps[3]!.observation).toMatch(/not valid JSON/);
    expect(t.steps[4]!.observation).toMatch(/^ERROR: invalid arguments for simulate_action: x:/);
    expect(t.steps[5]!.observation).toMatch(/you made 2 tool calls; only the first \(check_placement\) was executed/);
    // The second call was not executed, so the solution placed there did not end the episode.
    expect(model.received).toHaveLength(6);
    expect(t.usage).toEqual({ input: 600, output: 120, cached: 60, calls: 6, costUsd: expect.closeTo(0.0006, 10) });
  });

  it("keeps the trajectory when the endpoint fails for good", async () => {
    const { t } = await run([{ toolCalls: [call("get_level_state", {})] }, new Error("endpoint http://x/v1 (model m) failed after 4 retries")]);
    expect(t).toMatchObject({ success: false, stopReason: "error", error: expect.stringMatching(/failed after 4 retries/) });
    expect(t.steps).toHaveLength(1);
  });

  it("says the enforced budget, horizon and bounds in the prompt, and sends the tool schemas", async () => {
    const { model } = await run([{ toolCalls: [call("finish", miss)] }], { maxTurns: 7 }, 1500);
    const system = model.received[0]!.messages[0]!.content;
    expect(system).toContain("You have at most 7 turns");
    expect(system).toContain("within 1500 steps");
    expect(system).toContain(`default is ${instance.defaultRadius.toFixed(2)}`);
    expect(model.received[0]!.tools.map((t) => t.name)).toEqual(toolSet("extended").map((t) => t.name));
    expect(model.received[0]!.tools.find((t) => t.name === "simulate_action")!.parameters).toMatchObject({ required: ["x", "y", "radius"] });
  });

  it.each([
    ["paper", "cuts the scene reading too, as the paper's harness did", true],
    ["paper-open-weight", "keeps the first scene reading whole, as the paper's open-weight setting did", false],
  ] as const)("in %s compaction, compacts every old observation but the last K turns, and %s", async (compaction, _, sceneCut) => {
    const probes = [1, 2, 3, 4, 5, 6].map(() => ({ toolCalls: [call("simulate_action", miss)] }));
    const { model } = await run([{ toolCalls: [call("get_level_state", {})] }, ...probes, { toolCalls: [call("finish", miss)] }], {
      compaction,
      keepTurns: 2,
      oldObservationHead: 60,
      oldObservationTail: 30,
    });
    const last = model.received.at(-1)!.messages;
    const toolReplies = last.filter((m) => m.role === "tool").map((m) => m.content);
    expect(toolReplies[0]).toMatch(/^\[turn 1 of 25 used; 24 left\]\n/);
    expect(/\[… .*cut\]/.test(toolReplies[0]!)).toBe(sceneCut);
    expect(toolReplies.slice(1, -2).every((r) => /characters cut/.test(r))).toBe(true);
    expect(toolReplies.slice(-2).some((r) => /characters cut/.test(r))).toBe(false);
    // Every observation the model reads starts with the turn count (cut ones keep their head).
    expect(toolReplies.map((r) => /^\[turn (\d+) of 25 used; (\d+) left\]/.exec(r)?.slice(1).map(Number))).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((k) => [k, 25 - k]),
    );
  });

  it("in context compaction, cuts nothing while the request is far below the model's context", async () => {
    const probes = [1, 2, 3, 4, 5, 6].map(() => ({ toolCalls: [call("simulate_action", miss)] }));
    const { model, t } = await run([{ toolCalls: [call("get_level_state", {})] }, ...probes, { toolCalls: [call("finish", miss)] }], { keepTurns: 2 });
    const toolReplies = model.received
      .at(-1)!
      .messages.filter((m) => m.role === "tool")
      .map((m) => m.content);
    expect(toolReplies.slice(1)).toEqual(t.steps.slice(1, -1).map((s, i) => `[turn ${i + 2} of 25 used; ${23 - i} left]\n${s.observation}`));
  });

  it("compacts once the request passes its share of a small context, keeping each rollout's outcome and goal objects", async () => {
    const probes = Array.from({ length: 10 }, () => ({ text: "x".repeat(400), toolCalls: [call("simulate_action", miss)] }));
    const { model, t } = await run([...probes, { toolCalls: [call("finish", miss)] }], {
      contextTokens: 4_000,
      compactAt: 0.5,
      oldObservationHead: 60,
      oldObservationTail: 30,
    });
    const sent = model.received.at(-1)!.messages;
    const toolReplies = sent.filter((m) => m.role === "tool").map((m) => m.content);
    expect(toolReplies.some((r) => /characters cut/.test(r))).toBe(true);
    const [g0, g1] = instance.goal;
    for (const reply of toolReplies) {
      expect(reply).toMatch(/^\[turn \d+ of 25 used; \d+ left\]\n(FAILURE|SUCCESS)/);
      const step = t.steps[Number(/^\[turn (\d+)/.exec(reply)![1]) - 1]!;
      for (const g of [g0, g1]) expect(reply).toContain(step.observation.split("\n").find((l) => l.startsWith(`- ${g} `))!);
    }
  });

  it("pins only the first reading of the scene; a repeated one is compacted like any other", async () => {
    const looks = [1, 2, 3].map(() => ({ toolCalls: [call("get_level_state", {})] }));
    const { model } = await run([...looks, { toolCalls: [call("finish", miss)] }], {
      compaction: "paper",
      keepTurns: 1,
      oldObservationHead: 60,
      oldObservationTail: 30,
    });
    const toolReplies = model.received
      .at(-1)!
      .messages.filter((m) => m.role === "tool")
      .map((m) => m.content);
    expect(toolReplies[0]).not.toMatch(/characters cut/);
    expect(toolReplies[1]).toMatch(/cut\]/);
  });

  it("refuses a family's compact sections that do not join to its observation (a family bug, not the model's)", async () => {
    const env: TaskEnv = {
      level: "toy",
      seed: 0,
      tools: [],
      prompt: { noun: "task", role: "r", sections: [], rules: [], task: "t" },
      call: async () => ({ ok: true, observation: "outcome: FAILURE", compact: [{ text: "outcome: SUCCESS", keep: true }] }),
      close: async () => {},
    };
    const model = new ScriptedModel([{ toolCalls: [call("probe", {})] }]);
    await expect(
      runActorEpisode({ open: async () => env, config: ActorConfig.parse({}), agent: "react" }, { model, costOf: () => 0, now: () => 0 }),
    ).rejects.toThrow(/tool probe: its compact sections do not join to its observation/);
  });

  it("keeps the tool's own text in the trajectory; only the model's copy carries the turn line", async () => {
    const { t } = await run([{ toolCalls: [call("get_level_state", {})] }, { toolCalls: [call("finish", miss)] }]);
    expect(t.steps[0]!.observation).toMatch(/^Level two_body_problem/);
  });
});
