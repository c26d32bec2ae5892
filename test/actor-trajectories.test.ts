import { describe, it } from "vitest";
import { ActorConfig } from "../agents/actor-config.ts";
import { runLlmEpisode, type LlmAgent } from "../agents/run-episode.ts";
import { readCertified } from "../levels/interphyre/certified-seeds.ts";
import { INTERPHYRE_WORDS } from "../levels/interphyre/family.ts";
import { openInterphyreEnv } from "../levels/interphyre/task-env.ts";
import { sha256Hex } from "../src/util/canonical-json.ts";
import { ContextOverflow } from "../src/llm/llm-error.ts";
import { expectGolden } from "./support/golden.ts";
import { call, ScriptedModel, type Scripted } from "./support/scripted-model.ts";

/**
 * Whole episodes of every model-driven agent on a scripted model, compared with test/golden/trajectories/: the
 * trajectory (steps, thoughts, observations, tokens, cost, turns, stop reason, times from a counting clock) and
 * the sha256 of every request the model was sent (its messages and tools, as the response cache keys them). The
 * files were written by the hand-written loop that preceded the langchain agent, so a diff is a change of
 * behaviour (docs/ARCHITECTURE.md §5.1).
 */
const certified = readCertified("two_body_problem")!.seeds[0]!;
const [sx, sy, sr] = certified.solution;
const solution = { x: sx, y: sy, radius: sr };
const miss = { x: -4.3, y: 4.3, radius: 0.1 };
const open = (maxTurns: number) => openInterphyreEnv({ level: "two_body_problem", seed: certified.seed, horizon: 2000, toolSet: "extended", maxTurns });
const SKILLS = "## Learned skills\n1. [Strategy: Drop above the gap] A ball dropped above the gap joins the two balls.";

const play = async (name: string, agent: LlmAgent, script: Scripted[], config: Partial<ActorConfig> = {}, skillPrefix?: string) => {
  const model = new ScriptedModel(script);
  let clock = 0;
  const reported: number[] = [];
  const trajectory = await runLlmEpisode(
    { agent, open, words: INTERPHYRE_WORDS, config: ActorConfig.parse(config), ...(skillPrefix ? { skillPrefix } : {}) },
    {
      model,
      costOf: (r) => r.usage.input * 1e-6 + r.usage.output * 4e-6,
      now: () => (clock += 5),
      onStep: (s) => void reported.push(s.turn),
    },
  );
  const requests = model.received.map((r) => sha256Hex({ messages: r.messages, tools: r.tools }));
  expectGolden(`${name}.json`, `${JSON.stringify({ trajectory, reported, requests }, null, 1)}\n`, "trajectories");
};

const probe = (text = "probe"): Scripted => ({ text, toolCalls: [call("simulate_action", miss)] });
const malformed = (rawArgs: string) => ({
  id: `bad_${rawArgs.length}`,
  name: "simulate_action",
  args: {},
  rawArgs,
  argsError: "simulate_action: arguments are not valid JSON (Unexpected end of JSON input); send one JSON object",
});

describe("the actor's episodes (golden trajectories)", () => {
  it("react: every kind of bad turn, then an auto-finish", async () => {
    await play(
      "react-bad-turns",
      "react",
      [
        { text: "I think the ball should go left.", reasoning: "Left looks open." },
        { text: "", problem: "the answer was cut at the output cap (finish_reason length)" },
        { toolCalls: [call("teleport", { x: 0 })] },
        { toolCalls: [malformed("{x: 1")] },
        { text: "cut", toolCalls: [malformed('{"x": 1, "y"')], problem: "the answer was cut at the output cap (finish_reason length)" },
        { toolCalls: [call("simulate_action", { x: "left", y: 0, radius: 0.3 })] },
        { text: "two at once", toolCalls: [call("check_placement", miss), call("simulate_action", solution)] },
        { toolCalls: [call("get_level_state", {})] },
        { text: "go", toolCalls: [call("simulate_action", solution)], usage: { input: 300, output: 40, cached: 0 }, model: "scripted-2" },
      ],
      { maxTurns: 9 },
    );
  });

  it("hexa: skill block and addendum, paper compaction, finish", async () => {
    const probes = Array.from({ length: 6 }, (_, i) => probe(`probe ${i}`));
    await play(
      "hexa-paper-compaction",
      "hexa",
      [{ toolCalls: [call("get_level_state", {})] }, ...probes, { toolCalls: [call("finish", miss)] }],
      { compaction: "paper", keepTurns: 2, oldObservationHead: 60, oldObservationTail: 30 },
      SKILLS,
    );
  });

  it("react: context compaction and the request cap in a small context", async () => {
    const probes = Array.from({ length: 10 }, () => probe("x".repeat(400)));
    await play("react-request-cap", "react", [...probes, { toolCalls: [call("finish", miss)] }], {
      contextTokens: 4_000,
      oldObservationHead: 60,
      oldObservationTail: 30,
    });
  });

  it("react: the budget runs out", async () => {
    await play("react-budget", "react", [probe(), probe(), probe()], { maxTurns: 3 });
  });

  it("react: the endpoint fails for good, and a context the episode outgrew", async () => {
    await play("react-endpoint-error", "react", [
      { toolCalls: [call("get_level_state", {})] },
      new Error("endpoint http://x/v1 (model m) failed after 4 retries"),
    ]);
    const overflow = new ContextOverflow("http://x/v1", "m", 1, new Error("maximum context length is 4096 tokens"), "lower llm.actor.maxOutputTokens");
    await play("react-context-overflow", "react", [probe(), overflow]);
  });

  it("reflexion: a failed trial, a reflection, a solved trial", async () => {
    const probes = Array.from({ length: 12 }, () => probe());
    await play("reflexion", "reflexion", [
      ...probes,
      { text: "I dropped it in the corner. Next, above the gap." },
      { toolCalls: [call("simulate_action", solution)] },
    ]);
  });

  it("direct: a look, then the commit", async () => {
    await play("direct", "direct", [{ toolCalls: [call("get_level_state", {})] }, { toolCalls: [call("finish", solution)] }]);
  });
});
