import { createAppContext } from "../src/app/context.ts";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usageRecord } from "../src/llm/accounting.ts";
import { createRoleModel } from "../src/llm/role-model.ts";
import { playEpisode } from "../src/loop/play.ts";
import { parseRunConfig, type RunAgent } from "../src/loop/run-config.ts";
import { NO_EVIDENCE } from "../src/store/bank-weights.ts";
import type { Bank } from "../src/store/bank.ts";
import type { Trajectory } from "../src/store/trajectory.ts";
import { parse as parseYaml } from "yaml";
import { expectGolden } from "./support/golden.ts";
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest, type ScriptItem } from "./support/fake-openai-server.ts";

/** The shipped families, as hexa has them with no HEXA_FAMILIES. */
const { families } = await createAppContext({});

/**
 * Every actor prompt rendered for fixed inputs (docs/prompts.md): catapult seed 1, a fixed bank, a scripted 12-turn
 * episode against a local OpenAI-compatible server that logs each request. The rendered requests are compared with
 * test/golden/prompts/; UPDATE_GOLDEN=1 rewrites them, so a change to a prompt is a visible diff in review.
 */
await families.load();
const interphyre = families.get("interphyre");
const LEVEL = "catapult";
const SEED = 1;
const GOAL = ["green_ball", "blue_ball"];

const common = { kind: "skill" as const, sourceSeeds: [3, 5], generation: 2, parents: [], evidence: NO_EVIDENCE };
const BANK: Bank = {
  skills: [
    {
      ...common,
      id: "s1",
      title: "Tip the gray platform from its right end",
      principle: "A ball dropped on the right end of the gray platform tips it, launching the gray ball leftwards and up.",
      whenToApply: "The gray platform rests on the gray ball with its right end free.",
      example: "x=1.2, y=2.0, radius 0.6 tipped it on seed 3.",
      sourceType: "contrastive",
      weight: 0.85,
    },
    {
      ...common,
      id: "s2",
      title: "Heavier drops carry further",
      principle: "A larger red ball lands harder, so the catapult throws further; runs that stopped short used radius under 0.5.",
      whenToApply: "The green ball moves but lands short of the blue ball.",
      sourceType: "partial",
      weight: 0.45,
    },
    {
      ...common,
      id: "s3",
      title: "Knock the target ball off its support",
      principle: "A ball on a ledge falls once hit from the side; bridging primitive: lateral impulse on a supported ball.",
      whenToApply: "A goal object rests on a ledge or platform.",
      sourceType: "transfer",
      weight: 0.7,
    },
  ],
  mistakes: [
    {
      kind: "mistake",
      id: "m1",
      description: "Dropping the red ball onto the green ball directly.",
      rootCause: "Believing the green ball must be pushed, when the catapult must throw it.",
      correction: "Drop the ball on the platform's free end instead.",
      sourceSeeds: [4],
      generation: 2,
      weight: 0.6,
      parents: [],
      evidence: NO_EVIDENCE,
    },
  ],
};

const p = (x: number, y: number, radius: number) => ({ x, y, radius });
const turn = (text: string, name: string, args: unknown): ScriptItem => ({ text, toolCalls: [{ name, args }] });

/** Eleven experiments that all fail on catapult seed 1, then finish: turn 12's request carries the whole history. */
const SCRIPT: ScriptItem[] = [
  turn("First read the scene.", "get_level_state", {}),
  turn("Now the geometry around the catapult.", "describe_scene_geometry", {}),
  turn("Try a drop on the left.", "simulate_action", p(-3, 3, 0.3)),
  turn("Mistake 1 may apply: watch where green_ball goes.", "trace_objects", { ...p(-3, 3, 0.3), objects: ["green_ball", "blue_ball"] }),
  turn("Skill 1: drop nearer the platform.", "simulate_action", p(0, 4, 0.4)),
  turn("Check the state after 2 s.", "simulate_partial", { ...p(0, 4, 0.4), stop_step: 120 }),
  turn("What does a drop further right hit first?", "predict_first_contact", p(2, 3, 0.5)),
  turn("Run it.", "simulate_action", p(2, 3, 0.5)),
  turn("Skill 2 explains the short throw; read the contacts.", "get_contact_log", {}),
  turn("Try the right side.", "simulate_action", p(3.5, 4, 0.3)),
  turn("A larger ball, as skill 2 says.", "simulate_action", p(-1, 4.2, 0.6)),
  turn("Commit the best seen.", "finish", p(-1, 4.2, 0.6)),
];

/** A request as a reader sees it: sampling, tool names, then each message with its role. */
const renderRequest = (r: RecordedRequest): string => {
  const b = r.body;
  const out = [
    `# temperature ${b.temperature ?? "(none)"}, max tokens ${b.max_tokens ?? b.max_completion_tokens ?? "(none)"}`,
    `# tools: ${(b.tools ?? []).map((t) => t.function.name).join(", ")}`,
  ];
  for (const m of b.messages) {
    out.push("", `===== ${String(m.role)}${m.name ? ` (${String(m.name)})` : ""}`);
    if (typeof m.content === "string" && m.content !== "") out.push(m.content);
    for (const c of (m.tool_calls ?? []) as { function: { name: string; arguments: string } }[]) out.push(`→ ${c.function.name} ${c.function.arguments}`);
  }
  return `${out.join("\n")}\n`;
};

let server: FakeOpenAI;
beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(async () => server.close());

/** One episode through the loop's own entry (playEpisode) with configs/paper-catapult.yaml's settings. */
const play = async (agent: RunAgent, script: ScriptItem[]): Promise<{ requests: RecordedRequest[]; trajectory: Trajectory }> => {
  const preset = parseYaml(readFileSync("configs/paper-catapult.yaml", "utf8")) as Record<string, unknown> & { llm: { actor: object } };
  const config = parseRunConfig(
    { ...preset, agent, llm: { actor: { ...preset.llm.actor, model: "gpt-4.1-mini", baseURL: server.url, apiKey: "test", maxRetries: 0 } } },
    "paper-catapult",
    families.all(),
  );
  const before = server.requests.length;
  server.push(...script);
  const model = createRoleModel("actor", config.llm, { env: {}, sleep: async () => {} });
  const { trajectory } = await playEpisode(interphyre, {
    task: { level: LEVEL, seed: SEED },
    agent,
    config,
    bank: BANK,
    model,
    costOf: (t) => usageRecord("actor", t, config.llm.prices).costUsd,
    now: () => 0,
  });
  return { requests: server.requests.slice(before), trajectory };
};

const firstUser = (r: RecordedRequest) => String(r.body.messages.find((m) => m.role === "user")!.content);
const ADDENDUM =
  /After every failed simulation, look back at the learned skills above, pick the one that explains the failure \(or whose condition applied\) and name it in your next thought\./;

describe("the actor's prompts (golden files)", () => {
  it("hexa: the skill block and the diagnostic addendum at turn 1; compacted history at turn 12", async () => {
    const { requests, trajectory } = await play("hexa", SCRIPT);
    expect(requests).toHaveLength(12);
    expect(trajectory).toMatchObject({ success: false, stopReason: "finish" });
    expect(firstUser(requests[0]!)).toMatch(ADDENDUM);
    expect(String(requests[0]!.body.messages[0]!.content)).toContain("2. [Lesson: Heavier drops carry further]");
    expect([requests[0]!.body.temperature, requests[0]!.body.max_tokens]).toEqual([0.3, 800]);
    expectGolden("actor-turn1.txt", renderRequest(requests[0]!));
    expectGolden("actor-turn12.txt", renderRequest(requests[11]!));

    // At turn 12 every rollout observation still holds its outcome line and both goal objects' final states.
    const tools = requests[11]!.body.messages.filter((m) => m.role === "tool");
    const rollouts = trajectory.steps.flatMap((s, i) => (s.tool === "simulate_action" ? [{ step: s, sent: String(tools[i]!.content) }] : []));
    expect(rollouts).toHaveLength(5);
    expect(rollouts.filter((r) => /characters\) cut\]/.test(r.sent)).length).toBeGreaterThanOrEqual(2);
    for (const { step, sent } of rollouts) {
      const lines = step.observation.split("\n");
      expect(sent).toContain(lines[0]!);
      expect(lines[0]).toMatch(/^FAILURE after \d+ steps/);
      for (const g of GOAL) expect(sent).toContain(lines.find((l) => l.startsWith(`- ${g} at `))!);
    }
  });

  it("react: the same task without the skill block or the addendum", async () => {
    const { requests } = await play("react", [turn("Commit.", "finish", p(-1, 4.2, 0.6))]);
    expect(requests).toHaveLength(1);
    expect(firstUser(requests[0]!)).not.toMatch(/look back at the learned skills/);
    expect(String(requests[0]!.body.messages[0]!.content)).not.toMatch(/Learned skills|Strategy:/);
    expectGolden("react-turn1.txt", renderRequest(requests[0]!));
  });
});
