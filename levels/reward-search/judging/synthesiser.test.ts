import { afterEach, describe, expect, it, vi } from "vitest";
import { startFakeOpenAI, type FakeOpenAI, type ScriptItem } from "../../../test/support/fake-openai-server.ts";
import { call, ScriptedModel } from "../../../test/support/scripted-model.ts";
import type { RoleModel } from "../../../src/llm/ask.ts";
import { ModelConfig } from "../../../src/llm/config.ts";
import { EndpointLimits } from "../../../src/llm/endpoint-limits.ts";
import { createOpenAIChat } from "../../../src/llm/openai-chat.ts";
import { synthesise } from "./agreement.ts";
import { tinyRecord } from "./fixtures/tiny-record.ts";
import { SettledSynthesis, SynthesisRecord } from "./synthesis.ts";
import { type JudgesOnEpisode, synthesiseJudges } from "./synthesiser.ts";

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const endpointModel = async (script: ScriptItem[]): Promise<RoleModel> => {
  server = await startFakeOpenAI(script);
  const config = { ...ModelConfig.parse({ model: "gpt-test" }), baseURL: server.url, apiKey: "test-key" };
  return createOpenAIChat(config, { sleep: async () => {}, random: () => 0.5, limits: new EndpointLimits() });
};

const vision = () =>
  vi.fn(async (question: string, from: number, to: number) => `from ${from} s to ${to} s: the torso slides forward (${question.length} chars asked)`);

/** The tiny record's episode: 10 steps of 0.05 s, the torso moving +0.1 m in x per step. */
const judges = (code: number, visionScore: number): JudgesOnEpisode => ({
  intent: "slide forward by one metre",
  record: tinyRecord(),
  code: { score: code, breakdown: ["score 0.950 (top level sequential)", "1 Forward travel PASS [0.950/1.000] value 1"] },
  vision: { score: visionScore, assessment: "The torso barely moves." },
  judgeLimits: { cpuMs: 100 },
});

const verdict = (v: Record<string, unknown>) =>
  JSON.stringify({ score: 0.95, passed: true, sided_with: "code", rotation: false, reason: "the trajectory shows 1 m", ...v });

const TRAVEL_CHECK = `function judge(traj) {
  const w = traj.width.xpos;
  return [{ id: "travel", value: traj.xpos[(traj.steps - 1) * w + 3] - traj.initial.xpos[3], note: "torso x travel, m" }];
}`;

const toolContents = (i: number) => server!.requests[i]!.body.messages.filter((m) => m.role === "tool").map((m) => String(m.content));

describe("synthesiseJudges without a model call", () => {
  it("returns the agreement rule's outcome as it is, and the model's server sees no request", async () => {
    const model = await endpointModel([]);
    const ports = { model, reaskVision: vision() };
    expect(await synthesiseJudges(judges(0.95, 0.9), ports)).toEqual(synthesise({ code: 0.95, vision: 0.9 }));
    expect(await synthesiseJudges({ ...judges(0.93, 0), vision: null }, ports)).toMatchObject({ kind: "single", judge: "code", rule: /^code judge alone/ });
    const none = await synthesiseJudges({ ...judges(0, 0), code: null, vision: null }, ports);
    expect(none).toMatchObject({ kind: "none" });
    expect(SynthesisRecord.parse(none)).toEqual(none);
    expect(server!.requests).toHaveLength(0);
    expect(ports.reaskVision).not.toHaveBeenCalled();
  });
});

describe("synthesiseJudges on a disagreement, through the endpoint client", () => {
  it("runs the model's tool calls (a trajectory check, a re-ask of the vision judge), then takes its verdict", async () => {
    const model = await endpointModel([
      { toolCalls: [{ name: "run_trajectory_check", args: { code: TRAVEL_CHECK } }] },
      { text: "Ask about the middle.", toolCalls: [{ name: "reask_vision", args: { question: "Does the torso move forward?", from_s: 0.1, to_s: 0.4 } }] },
      { text: verdict({}) },
    ]);
    const reaskVision = vision();
    const s = await synthesiseJudges(judges(0.95, 0.4), { model, reaskVision });

    expect(server!.requests).toHaveLength(3);
    const first = server!.requests[0]!.body;
    expect(first.tools?.map((t) => t.function.name)).toEqual(["reask_vision", "run_trajectory_check"]);
    expect(String(first.messages[0]!.content)).toMatch(/at most 3 tool calls/);
    expect(String(first.messages[1]!.content)).toMatch(/Why they disagree: disagree: code 0\.95 and vision 0\.4/);
    expect(toolContents(1)).toEqual(["1 result(s):\n- travel: 1 — torso x travel, m"]);
    expect(reaskVision).toHaveBeenCalledWith("Does the torso move forward?", 0.1, 0.4);
    expect(toolContents(2)[1]).toMatch(/^from 0\.1 s to 0\.4 s: the torso slides forward/);

    const settled = SettledSynthesis.parse(SynthesisRecord.parse(s));
    expect(settled).toMatchObject({
      kind: "settled",
      score: 0.95,
      passed: true,
      sidedWith: "code",
      code: 0.95,
      vision: 0.4,
      disagreement: "gap and threshold",
    });
    expect(settled.toolCalls.map((c) => [c.name, c.status])).toEqual([
      ["run_trajectory_check", "ran"],
      ["reask_vision", "ran"],
    ]);
    expect(JSON.parse(settled.toolCalls[1]!.args)).toEqual({ question: "Does the torso move forward?", from_s: 0.1, to_s: 0.4 });
    expect(settled.rule).toBe("settled by gpt-test after 2 tool calls run: sided with the code judge, score 0.95");
  });

  it("keeps the budget of 3: a fourth call is refused, and once spent the model is asked without tools for the verdict", async () => {
    const reask = (from_s: number) => ({ name: "reask_vision", args: { question: "Is it moving?", from_s, to_s: 0.5 } });
    const model = await endpointModel([
      { toolCalls: [reask(0), { name: "run_trajectory_check", args: { code: TRAVEL_CHECK } }] },
      { toolCalls: [reask(0.2), reask(0.3)] },
      { toolCalls: [reask(0.4)] },
      { text: verdict({ score: 0.5, passed: false, sided_with: "neither" }) },
    ]);
    const reaskVision = vision();
    const s = SettledSynthesis.parse(await synthesiseJudges(judges(0.95, 0.4), { model, reaskVision }));

    expect(s.toolCalls.map((c) => c.status)).toEqual(["ran", "ran", "ran", "refused", "refused"]);
    expect(reaskVision.mock.calls.map((c) => c[1])).toEqual([0, 0.2]);
    expect(toolContents(2).slice(-1)[0]).toMatch(/^refused: the budget of tool calls is spent/);
    expect(server!.requests).toHaveLength(4);
    for (const i of [2, 3]) {
      expect(server!.requests[i]!.body.tools).toBeUndefined();
      expect(server!.requests[i]!.body.response_format).toMatchObject({ type: "json_schema", json_schema: { name: "synthesis_verdict" } });
    }
    expect(s).toMatchObject({
      score: 0.5,
      passed: false,
      sidedWith: "neither",
      rule: expect.stringMatching(/after 3 tool calls run \(2 refused or invalid\)/),
    });
  });

  it("falls back to the code judge's score, labelled, when the model call fails", async () => {
    const model = await endpointModel([{ fault: "400" }]);
    const s = await synthesiseJudges(judges(0.8, 0.3), { model, reaskVision: vision() });
    expect(s).toMatchObject({
      kind: "settled",
      score: 0.8,
      passed: false,
      verdict: null,
      rule: expect.stringMatching(/^synthesiser failed: the model call failed: /),
    });
  });
});

describe("synthesiseJudges with a scripted model", () => {
  it("contains a hostile check (an endless loop times out) and bad arguments: each is the call's result, never a crash", async () => {
    const model = new ScriptedModel([
      { toolCalls: [call("run_trajectory_check", { code: "function judge() { for (;;) {} }" })] },
      {
        toolCalls: [
          call("reask_vision", { question: "Forward?", from_s: 0.4, to_s: 0.1 }),
          call("reask_vision", { question: "x".repeat(501), from_s: 0, to_s: 9 }),
        ],
      },
      { text: verdict({}) },
    ]);
    const reaskVision = vision();
    const s = SettledSynthesis.parse(await synthesiseJudges(judges(0.95, 0.4), { model, reaskVision }));

    expect(s.toolCalls.map((c) => c.status)).toEqual(["ran", "invalid", "invalid"]);
    expect(s.toolCalls[0]!.result).toMatch(/^the check failed \(timeout\): the judge's code ran longer than 100 ms/);
    expect(s.toolCalls[1]!.result).toMatch(/to_s: 0\.1 is not after from_s 0\.4/);
    expect(s.toolCalls[2]!.result).toMatch(/question: .*500.*to_s: .*0\.5/);
    expect(reaskVision).not.toHaveBeenCalled();
    expect(s.score).toBe(0.95);
  });

  it("cuts a huge check's output at 2,000 characters and turns a failing vision call into the call's result", async () => {
    const huge = `function judge() { return Array.from({ length: 100 }, (_, i) => ({ id: "r" + i, value: i, note: "n".repeat(400) })); }`;
    const model = new ScriptedModel([
      { toolCalls: [call("run_trajectory_check", { code: huge }), call("reask_vision", { question: "Forward?", from_s: 0, to_s: 0.5 })] },
      { text: verdict({}) },
    ]);
    const reaskVision = vi.fn(async () => {
      throw new Error("the vision endpoint is down");
    });
    const s = SettledSynthesis.parse(await synthesiseJudges(judges(0.95, 0.4), { model, reaskVision }));
    expect(s.toolCalls[0]!.result).toMatch(/^100 result\(s\):\n- r0: 0 — n+\n- r1: 1 — [\s\S]*… \(cut at 2000 of \d+ characters\)$/);
    expect(s.toolCalls[1]).toMatchObject({ status: "ran", result: "reask_vision failed: Error: the vision endpoint is down" });
    expect(model.received[1]!.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(s.toolCalls.map((c) => c.result));
  });

  it("enforces the rotation rule: a verdict on rotation direction that sides with the vision judge gives way to the code judge", async () => {
    const model = new ScriptedModel([
      { text: verdict({ score: 0.9, passed: true, sided_with: "vision", rotation: true, reason: "the frames show a back flip" }) },
    ]);
    const s = SettledSynthesis.parse(await synthesiseJudges(judges(0.3, 0.9), { model, reaskVision: vision() }));
    expect(s).toMatchObject({ score: 0.3, passed: false, sidedWith: "code", verdict: { sided_with: "vision", score: 0.9, rotation: true } });
    expect(s.rule).toMatch(/rotation direction, where the code judge's measurement wins: its score 0\.3 stands \(the verdict's vision 0\.9 is set aside\)/);
    expect(model.received[0]!.messages[0]!.content).toMatch(/the code judge's measurement wins/);
  });

  it("retries a garbage answer once with the problem shown, then falls back to the code judge's score, labelled", async () => {
    const model = new ScriptedModel([{ text: "The code judge is right." }, { text: '{"score": 7, "passed": true}' }, { text: verdict({}) }]);
    const s = SettledSynthesis.parse(await synthesiseJudges(judges(0.8, 0.3), { model, reaskVision: vision() }));
    expect(model.received).toHaveLength(2);
    expect(model.received[1]!.messages.at(-1)!.content).toMatch(/^Your verdict could not be used: the answer is not JSON/);
    expect(s).toMatchObject({
      score: 0.8,
      passed: false,
      sidedWith: "code",
      verdict: null,
      failure: expect.stringMatching(/no valid verdict after 2 answer\(s\): .*score/),
    });
    expect(s.rule).toMatch(/^synthesiser failed: .*; the code judge's score 0\.8 stands$/);
  });

  it("refuses a verdict whose passed contradicts its score against the threshold", async () => {
    const model = new ScriptedModel([{ text: verdict({ score: 0.5, passed: true }) }, { text: verdict({ score: 0.5, passed: false }) }]);
    const s = SettledSynthesis.parse(await synthesiseJudges(judges(0.95, 0.4), { model, reaskVision: vision() }));
    expect(model.received[1]!.messages.at(-1)!.content).toMatch(/passed: true with score 0\.5 .*passed is true exactly when score >= 0\.9/);
    expect(s).toMatchObject({ score: 0.5, passed: false, failure: null });
  });
});
