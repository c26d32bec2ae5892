import { SystemMessage, ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readCertified } from "../levels/interphyre/certified-seeds.ts";
import { openInterphyreEnv } from "../levels/interphyre/task-env.ts";
import { call, ScriptedModel } from "../test/support/scripted-model.ts";
import { runActorEpisode } from "./actor.ts";
import { createActorAgent } from "./actor-agent.ts";
import { ActorConfig } from "./actor-config.ts";
import { EpisodeStateSchema } from "./episode-state.ts";

const certified = readCertified("two_body_problem")!.seeds[0]!;
const [sx, sy, sr] = certified.solution;
const solution = { x: sx, y: sy, radius: sr };
const miss = { x: -4.3, y: 4.3, radius: 0.1 };
const open = (maxTurns: number) => openInterphyreEnv({ level: "two_body_problem", seed: certified.seed, horizon: 2000, toolSet: "extended", maxTurns });

/** A turn without a call, a reading, two calls at once, the solution: every path a turn can take. */
const script = () => [
  { text: "thinking aloud" },
  { toolCalls: [call("get_level_state", {})] },
  { toolCalls: [call("check_placement", miss), call("simulate_action", solution)] },
  { toolCalls: [call("simulate_action", solution)] },
];

afterEach(() => {
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});

describe("the actor's agent", () => {
  it("makes no network request of its own: LangSmith tracing stays off unless the user's environment turns it on", async () => {
    for (const name of ["LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2", "LANGSMITH_API_KEY", "LANGCHAIN_API_KEY"]) vi.stubEnv(name, "");
    const fetched: string[] = [];
    vi.stubGlobal("fetch", async (input: string | URL | Request) => {
      fetched.push(String(input instanceof Request ? input.url : input));
      return new Response("{}");
    });
    const model = new ScriptedModel(script());
    const t = await runActorEpisode({ open, config: ActorConfig.parse({}), agent: "react" }, { model, costOf: () => 0, now: () => 0 });
    expect(t.stopReason).toBe("success");
    expect(fetched).toEqual([]);
  });
});

describe("the actor's graph", () => {
  it("has no node of hexa's own: a turn is the model node and the tool node (each hook node costs CPU every turn)", async () => {
    const env = await open(25);
    try {
      const { agent } = createActorAgent({
        env,
        model: new ScriptedModel([]),
        rules: { maxTurns: 25, costOf: () => 0, now: () => 0 },
        basePrompt: "Solve it.",
        additions: { noun: "level" },
        compaction: { keepTurns: 4, head: 400, tail: 200 },
      });
      expect(Object.keys(agent.graph.nodes).sort()).toEqual(["__start__", "model_request", "tools"]);
    } finally {
      await env.close();
    }
  });
});

describe("a user's middleware on the actor", () => {
  it("sees every model call as sent and every tool call as run", async () => {
    const requests: string[] = [];
    const answers: number[] = [];
    const tools: string[] = [];
    const watcher = createMiddleware({
      name: "watcher",
      wrapModelCall: async (request, handler) => {
        requests.push(request.messages.at(-1)!.text);
        const answer = await handler(request);
        answers.push(answer.tool_calls?.length ?? 0);
        return answer;
      },
      wrapToolCall: async (request, handler) => {
        tools.push(request.toolCall.name);
        return handler(request);
      },
    });
    const model = new ScriptedModel(script());
    const t = await runActorEpisode(
      { open, config: ActorConfig.parse({}), agent: "react", extraMiddleware: [watcher] },
      { model, costOf: () => 0, now: () => 0 },
    );
    expect(t).toMatchObject({ success: true, stopReason: "success", turns: 4 });
    // One sighting per model call, each of the request the model was sent (the nudge after a turn without a call too).
    expect(requests).toEqual(model.received.map((r) => r.messages.at(-1)!.content));
    expect(requests[1]).toMatch(/^\[turn 1 of 25 used; 24 left\]\nYou did not call a tool/);
    // The answer as the model gave it (two calls), but hexa's one-call rule lets only the first reach the tools.
    expect(answers).toEqual([0, 1, 2, 1]);
    expect(tools).toEqual(["get_level_state", "check_placement", "simulate_action"]);
  });

  it("may change the request the model is sent", async () => {
    const marker = createMiddleware({
      name: "marker",
      wrapModelCall: (request, handler) => handler({ ...request, systemMessage: new SystemMessage(`${request.systemPrompt}\nTRACE-ID 42`) }),
    });
    const model = new ScriptedModel([{ toolCalls: [call("finish", miss)] }]);
    await runActorEpisode({ open, config: ActorConfig.parse({}), agent: "react", extraMiddleware: [marker] }, { model, costOf: () => 0, now: () => 0 });
    expect(model.received[0]!.messages[0]).toMatchObject({ role: "system", content: expect.stringMatching(/\nTRACE-ID 42$/) });
  });

  it("changes what the model reads when it edits the agent's messages", async () => {
    const editor = createMiddleware({
      name: "editor",
      beforeModel: (state) => {
        const last = state.messages.at(-1);
        if (!ToolMessage.isInstance(last)) return undefined;
        return { messages: [new ToolMessage({ id: last.id!, content: "EDITED BY A USER", tool_call_id: last.tool_call_id, name: last.name! })] };
      },
    });
    const model = new ScriptedModel([{ toolCalls: [call("get_level_state", {})] }, { toolCalls: [call("finish", miss)] }]);
    await runActorEpisode({ open, config: ActorConfig.parse({}), agent: "react", extraMiddleware: [editor] }, { model, costOf: () => 0, now: () => 0 });
    expect(model.received[1]!.messages.at(-1)).toMatchObject({ role: "tool", content: "EDITED BY A USER" });
  });

  it("reads the episode's record from the agent's state", async () => {
    const seen: [number, number][] = [];
    const reader = createMiddleware({
      name: "reader",
      stateSchema: EpisodeStateSchema,
      wrapModelCall: (request, handler) => {
        seen.push([request.state.episode.turn, request.state.episode.steps.length]);
        return handler(request);
      },
    });
    const model = new ScriptedModel(script());
    await runActorEpisode({ open, config: ActorConfig.parse({}), agent: "react", extraMiddleware: [reader] }, { model, costOf: () => 0, now: () => 0 });
    // [turns answered, steps recorded] before each model call: a turn without a call is a step too.
    expect(seen).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
  });

  it("ends the episode as a failed one when it throws on a model call, like an endpoint failure", async () => {
    const broken = createMiddleware({
      name: "broken",
      wrapModelCall: () => {
        throw new Error("tracing backend unreachable");
      },
    });
    const model = new ScriptedModel(script());
    const t = await runActorEpisode(
      { open, config: ActorConfig.parse({}), agent: "react", extraMiddleware: [broken] },
      { model, costOf: () => 0, now: () => 0 },
    );
    expect(t).toMatchObject({ success: false, stopReason: "error", error: "tracing backend unreachable", steps: [] });
    expect(model.received).toHaveLength(0);
  });
});
