import { HumanMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it } from "vitest";
import { ActorConfig } from "../agents/actor-config.ts";
import { distil, labelTrajectories } from "../agents/evolver.ts";
import { runLlmEpisode } from "../agents/run-episode.ts";
import { INTERPHYRE_WORDS } from "../levels/interphyre/family.ts";
import { createInstance } from "../levels/interphyre/instance.ts";
import { openInterphyreEnv } from "../levels/interphyre/task-env.ts";
import { usageRecord } from "../src/llm/accounting.ts";
import { ask } from "../src/llm/ask.ts";
import { BudgetExceeded, SpendGate } from "../src/llm/budget.ts";
import { LlmConfig } from "../src/llm/config.ts";
import { EndpointLimits } from "../src/llm/endpoint-limits.ts";
import { createRoleModel } from "../src/llm/role-model.ts";
import { readCertified } from "../levels/interphyre/certified-seeds.ts";
import { NO_USAGE, Trajectory } from "../src/store/trajectory.ts";
import { startFakeOpenAI, type FakeOpenAI, type ScriptItem } from "./support/fake-openai-server.ts";

/**
 * The silent server quirks end to end: the actor and the evolver on hexa's real client against the local server
 * with quirk switches (fake-openai-quirks.ts), each ending with the right result or a message naming the cause.
 */
const certified = readCertified("two_body_problem")!.seeds[0]!;
const [x, y, radius] = certified.solution;
const solution = { x, y, radius };
const instance = createInstance("two_body_problem", certified.seed);

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const roleModel = async (role: "actor" | "evolver", script: ScriptItem[], extra: Record<string, unknown> = {}, gate?: SpendGate) => {
  server = await startFakeOpenAI(script);
  const llm = LlmConfig.parse({ [role]: { model: "local", baseURL: server.url, apiKey: "k", maxRetries: 0, ...extra } });
  const notices: string[] = [];
  const model = createRoleModel(role, llm, {
    env: {},
    sleep: async () => {},
    limits: new EndpointLimits(),
    onNotice: (m) => notices.push(m),
    ...(gate ? { gate } : {}),
  });
  return { model, llm, notices };
};

const episode = async (script: ScriptItem[], extra: Record<string, unknown> = {}) => {
  const { model, llm, notices } = await roleModel("actor", script, extra);
  const t = await runLlmEpisode(
    {
      agent: "react",
      open: (maxTurns) => openInterphyreEnv({ level: instance.level, seed: instance.seed, horizon: 2000, toolSet: "extended", maxTurns }),
      words: INTERPHYRE_WORDS,
      config: ActorConfig.parse({ maxTurns: 4 }),
    },
    { model, costOf: (turn) => usageRecord("actor", turn, llm.prices).costUsd, now: () => 0 },
  );
  return { t: Trajectory.parse(t), notices };
};

describe("the actor on a quirky server", () => {
  it("plays tool calls written as text (vLLM without a tool parser) and solves the level", async () => {
    const { t, notices } = await episode([
      { text: "Look first.", toolCalls: [{ name: "get_level_state", args: {} }], quirks: { textToolCalls: "hermes" } },
      { text: "Now solve.", toolCalls: [{ name: "simulate_action", args: solution }], quirks: { textToolCalls: "hermes" } },
    ]);
    expect(t).toMatchObject({ success: true, stopReason: "success", turns: 2 });
    expect(t.steps.map((s) => s.tool)).toEqual(["get_level_state", "simulate_action"]);
    expect(notices.filter((n) => n.includes("returned the tool call as text"))).toHaveLength(1);
    // The call goes back to the server as a proper tool call, not as the text it came in.
    const second = server!.requests[1]!.body.messages;
    expect(second.at(-2)).toMatchObject({ role: "assistant", content: "Look first.", tool_calls: [{ function: { name: "get_level_state" } }] });
  });

  it("keeps <think> as the step's thought and never sends it back", async () => {
    const { t } = await episode([
      { text: "Look first.", toolCalls: [{ name: "get_level_state", args: {} }], quirks: { think: "SECRET PLAN {x: 1}" } },
      {
        text: "Solve.",
        toolCalls: [{ name: "simulate_action", args: solution }],
        quirks: { reasoning: { field: "reasoning_content", text: "second reasoning" } },
      },
    ]);
    expect(t.steps[0]!.thought).toBe("Look first.\n\n[reasoning] SECRET PLAN {x: 1}");
    expect(t.steps[1]!.thought).toBe("Solve.\n\n[reasoning] second reasoning");
    expect(JSON.stringify(server!.requests[1]!.body.messages)).not.toContain("SECRET PLAN");
  });

  it("tells the model its answer was cut at the output cap, not that it was empty or not JSON", async () => {
    const { t } = await episode(
      [
        { text: "I will think at length", quirks: { finishLength: true } },
        { toolCalls: [{ name: "simulate_action", args: solution }], malformedArgs: true, quirks: { finishLength: true } },
        { toolCalls: [{ name: "simulate_action", args: solution }] },
      ],
      { maxOutputTokens: 256 },
    );
    const cap = "llm.actor: the answer was cut at max output tokens 256 (finish_reason length); raise llm.actor.maxOutputTokens, or answer more briefly";
    expect(t.steps[0]!.observation).toBe(
      `${cap}. You did not call a tool. Each turn must end with exactly one tool call (this turn still counted). Call a tool now.`,
    );
    expect(t.steps[1]!.observation).toBe(`ERROR: ${cap}`);
    expect(t.success).toBe(true);
  });

  it("ends an episode that outgrew the model's context as a failed episode with the fix, not an endpoint error", async () => {
    const { t } = await episode([{ text: "Look.", toolCalls: [{ name: "get_level_state", args: {} }] }, { quirks: { contextOverflow: "vllm" } }]);
    expect(t).toMatchObject({ success: false, stopReason: "context" });
    expect(t.error).toMatch(
      /maximum context length is 4096 tokens.*; the request \(prompt plus llm\.actor\.maxOutputTokens 8192\) is longer than the context the server gives the model: lower llm\.actor\.maxOutputTokens or actor\.maxRequestChars/,
    );
  });
});

const traj = (seed: number, success: boolean): Trajectory => ({
  schemaVersion: 2,
  level: "two_body_problem",
  seed,
  agent: "react",
  model: "m",
  success,
  turns: success ? 2 : 25,
  maxTurns: 25,
  action: solution,
  steps: [{ turn: 1, thought: "t", tool: "simulate_action", args: solution, observation: "o", ok: true, ms: 1 }],
  usage: NO_USAGE,
  wallMs: 0,
  stopReason: success ? "success" : "budget",
});
const batch = labelTrajectories([traj(10, true), traj(11, false)]);
const skill = { title: "aim left", principle: "Aim left of the blue ball.", when_to_apply: "always", sources: ["t1"] };
const contrastive = JSON.stringify({ skills: [skill] });
const failures = JSON.stringify({ mistakes: [{ description: "short", root_cause: "no bounce", correction: "higher", sources: ["t2"] }], partial_skills: [] });

describe("the evolver on a quirky server", () => {
  it("reads its JSON past a <think> block that holds braces of its own", async () => {
    const { model } = await roleModel("evolver", [
      { text: contrastive, quirks: { think: 'Maybe {"skills": []} is wrong; consider {a} and {b}.' } },
      { text: failures, quirks: { think: "{ nothing }" } },
    ]);
    const events = await distil({ words: INTERPHYRE_WORDS, model, round: 1, level: "two_body_problem", labelled: batch });
    expect(events.map((e) => e.type)).toEqual(["add", "add"]);
  });

  it("names the output cap in the evolver_failure of an answer cut short, not 'not JSON'", async () => {
    const cut: ScriptItem = { text: '{"skills": [{"title": "aim', quirks: { finishLength: true } };
    const { model } = await roleModel("evolver", [cut, cut], { maxOutputTokens: 1024 });
    const events = await distil({ words: INTERPHYRE_WORDS, model, round: 1, level: "two_body_problem", labelled: batch });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "evolver_failure",
      error:
        "structured output failed after 2 attempt(s): llm.evolver: the answer was cut at max output tokens 1024 (finish_reason length); raise llm.evolver.maxOutputTokens, or answer more briefly",
    });
  });

  it("records a prompt longer than the model's context as an evolver_failure with the fix, keeping the bank", async () => {
    const { model } = await roleModel("evolver", [{ quirks: { contextOverflow: "llama.cpp" } }]);
    const events = await distil({ words: INTERPHYRE_WORDS, model, round: 1, level: "two_body_problem", labelled: batch });
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe("evolver_failure");
    expect(events[0]).toMatchObject({
      error: expect.stringMatching(
        /exceeds the available context size.*; the request \(prompt plus llm\.evolver\.maxOutputTokens 8192\) is longer than the context/,
      ),
    });
  });
});

describe("a server that reports no usage, under a token cap", () => {
  it("counts hexa's estimate, so the cap stops the run near its limit instead of letting every call through", async () => {
    const gate = new SpendGate({ tokens: 60_000 }, {});
    const answer: ScriptItem = { text: "x".repeat(2000), quirks: { noUsage: true } };
    const { model, notices } = await roleModel(
      "actor",
      Array.from({ length: 20 }, () => answer),
      {},
      gate,
    );
    const big = [new HumanMessage("y".repeat(40_000))];
    let made = 0;
    const stop = await (async () => {
      for (;;) {
        await ask(model, big);
        made += 1;
      }
    })().catch((e: unknown) => e);
    expect(stop).toBeInstanceOf(BudgetExceeded);
    const spent = await gate.total();
    // About 10,500 estimated tokens a call: five fit under 60,000, the sixth would cross.
    expect(made).toBe(5);
    expect(spent.tokens).toBeGreaterThan(50_000);
    expect(spent.tokens).toBeLessThanOrEqual(60_000);
    expect(server!.requests).toHaveLength(5);
    expect(notices.some((n) => n.startsWith("llm.actor: the server reported no token usage"))).toBe(true);
  });
});
