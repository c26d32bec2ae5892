import { describe, expect, it } from "vitest";
import { createInstance } from "../../levels/interphyre/instance.ts";
import { readCertified } from "../../levels/interphyre/certified-seeds.ts";
import { INTERPHYRE_WORDS } from "../../levels/interphyre/family.ts";
import { openInterphyreEnv } from "../../levels/interphyre/task-env.ts";
import { call, ScriptedModel, type Scripted } from "../../test/support/scripted-model.ts";
import { ActorConfig } from "../actor-config.ts";
import { runDirect } from "./direct.ts";
import { firstSentences, runReflexion } from "./reflexion.ts";

const certified = readCertified("down_to_earth")!.seeds[0]!;
const [sx, sy, sr] = certified.solution;
const solution = { x: sx, y: sy, radius: sr };
const miss = { x: -4.3, y: 4.3, radius: 0.1 };
const instance = createInstance("down_to_earth", certified.seed);
const spec = {
  open: (maxTurns: number) => openInterphyreEnv({ level: instance.level, seed: instance.seed, horizon: 2000, toolSet: "paper", maxTurns }),
  config: ActorConfig.parse({}),
};
const ports = (model: ScriptedModel) => ({ model, costOf: () => 0, now: () => 0 });
const probes = (n: number): Scripted[] => Array.from({ length: n }, () => ({ text: "probe", toolCalls: [call("simulate_action", miss)] }));

describe("Direct", () => {
  it("has two turns: a look, then the commit", async () => {
    const model = new ScriptedModel([
      { toolCalls: [call("get_level_state", {})] },
      { toolCalls: [call("get_level_state", {})] },
      { toolCalls: [call("finish", solution)] },
    ]);
    const t = await runDirect(spec, ports(model));
    expect(t).toMatchObject({ agent: "direct", maxTurns: 2, turns: 2, stopReason: "budget", success: false });
    expect(model.received).toHaveLength(2);
    expect(model.received[0]!.messages[0]!.content).toContain("You have at most 2 turns");
  });
});

describe("Reflexion", () => {
  it("reflects after a failed trial and puts the reflection in the next trial's prompt", async () => {
    const reflection =
      "I dropped a tiny ball in the corner. It never reached the ball. Next, push the green ball off the platform edge. Extra sentence four. Five. Six is cut.";
    const model = new ScriptedModel([...probes(12), { text: reflection }, { toolCalls: [call("simulate_action", solution)] }]);
    const t = await runReflexion(spec, ports(model), INTERPHYRE_WORDS);
    expect(t).toMatchObject({ agent: "reflexion", success: true, stopReason: "success", turns: 13, maxTurns: 24 });
    expect(t.steps.map((s) => s.turn)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
    expect(t.usage.calls).toBe(14);
    const reflectCall = model.received[12]!;
    expect(reflectCall.tools).toEqual([]);
    expect(reflectCall.messages[1]!.content).toMatch(/failure after 12 turns/);
    const secondTrial = model.received[13]!.messages[0]!.content;
    expect(secondTrial).toContain("Reflections from your earlier attempts");
    expect(secondTrial).toContain(firstSentences(reflection, 5));
    expect(secondTrial).not.toContain("Six is cut");
    expect(model.received[0]!.messages[0]!.content).not.toContain("Reflections");
  });

  it("shows the reflection the failed trial as the evolver reads one: every turn, thought before action before outcome lines", async () => {
    const model = new ScriptedModel([...probes(12), { text: "Reflection." }, ...probes(12)]);
    await runReflexion(spec, ports(model), INTERPHYRE_WORDS);
    const shown = String(model.received[12]!.messages[1]!.content);
    expect(shown.match(/^turn \d+$/gm)).toHaveLength(12); // all 12 turns, not the last 8
    expect(shown).toMatch(/\nturn 1\n {2}thought: probe\n {2}action: simulate_action x=-4\.30, y=4\.30, radius=0\.10\n {2}← FAILURE/);
    // Each rollout keeps the goal objects' final states, which a 300-character cut of the observation lost.
    expect(shown.split("\nturn 12\n")[1]).toMatch(/← - green_ball at/);
  });

  it("spends at most K × 12 turns and carries nothing across seeds", async () => {
    const model = new ScriptedModel([...probes(12), { text: "Reflection one." }, ...probes(12)]);
    const t = await runReflexion(spec, ports(model), INTERPHYRE_WORDS);
    expect(t).toMatchObject({ success: false, turns: 24, maxTurns: 24, stopReason: "budget" });
    const other = new ScriptedModel([{ toolCalls: [call("finish", miss)] }, { text: "r" }, { toolCalls: [call("finish", miss)] }]);
    await runReflexion(
      {
        ...spec,
        open: (maxTurns: number) => openInterphyreEnv({ level: "down_to_earth", seed: certified.seed + 1, horizon: 2000, toolSet: "paper", maxTurns }),
      },
      ports(other),
      INTERPHYRE_WORDS,
    );
    expect(other.received[0]!.messages[0]!.content).not.toContain("Reflection one.");
  });

  it("keeps at most five sentences, and decimal points do not end one", () => {
    expect(firstSentences("A. B! C? D. E. F.", 5)).toBe("A. B! C? D. E.");
    expect(firstSentences("I placed it at x=2.4, y=3.1. It rolled off. Next try x=1.0.", 3)).toBe(
      "I placed it at x=2.4, y=3.1. It rolled off. Next try x=1.0.",
    );
  });

  it("ends with stopReason error when the reflection call fails", async () => {
    const model = new ScriptedModel([...probes(12), new Error("endpoint down after retries")]);
    const t = await runReflexion(spec, ports(model), INTERPHYRE_WORDS);
    expect(t).toMatchObject({ stopReason: "error", error: expect.stringMatching(/reflection call failed: endpoint down/) });
    expect(t.steps).toHaveLength(12);
  });
});
