import { describe, expect, it } from "vitest";
import { INTERPHYRE_WORDS } from "../levels/interphyre/family.ts";
import { getLevel } from "../levels/interphyre/levels/index.ts";
import { NO_USAGE, type Trajectory, type TrajectoryStep } from "../src/store/trajectory.ts";
import type { Bank } from "../src/store/bank.ts";
import { expectGolden } from "../test/support/golden.ts";
import { labelTrajectories } from "./evolver-labels.ts";
import { contrastivePrompt, evolvePrompt, failuresPrompt, type EvolverContext } from "./evolver-prompt.ts";

/** A catapult rollout's observation as simulate_action writes it: objects listed alphabetically, the goal pair in the middle. */
const rollout = (green: string, blue: string, success: boolean): string =>
  [
    success
      ? "SUCCESS at step 301: green_ball held contact with blue_ball for 3 s."
      : "FAILURE after 600 steps (everything at rest from step 412). Longest green_ball–blue_ball contact: 0.40 s of 3.",
    "red_ball first contacts: gray_platform @38, basket @120",
    "Dynamic objects at the end:",
    "- basket at (3.50, -3.34) v=(0.00, 0.00) angle=-8.7° resting",
    `- blue_ball at ${blue} v=(0.00, 0.00) angle=0.0° resting`,
    "- gray_ball at (-0.99, -2.86) v=(0.00, 0.00) angle=0.0° resting",
    "- gray_platform at (-0.60, -2.10) v=(0.00, 0.00) angle=4.1° resting",
    `- green_ball at ${green} v=(0.00, 0.00) angle=12.0° resting`,
    "- red_ball at (0.80, -4.05) v=(0.00, 0.00) angle=0.0° resting",
  ].join("\n");

const step = (turn: number, thought: string, x: number, observation: string, tool = "simulate_action"): TrajectoryStep => ({
  turn,
  thought,
  tool,
  args: tool === "get_level_state" ? {} : { x, y: 4, radius: 0.5 },
  observation,
  ok: true,
  ms: 1,
});

const SCENE_READ = [
  "Level catapult (seed 100). Goal: green_ball touches blue_ball for 3 s within 600 steps (60 steps = 1 s).",
  "Objects:",
  "- blue_ball: blue ball, dynamic, at (3.50, -2.70), radius 0.44",
  "- ledge: black bar, static, at (3.50, -3.55)",
].join("\n");

const episode = (seed: number, success: boolean, steps: TrajectoryStep[]): Trajectory => ({
  schemaVersion: 2,
  level: "catapult",
  seed,
  agent: "hexa",
  model: "m",
  success,
  turns: success ? steps.length : 8,
  maxTurns: 8,
  action: { x: steps.at(-1)!.args ? 1 : 0, y: 4, radius: 0.5 },
  steps,
  usage: NO_USAGE,
  wallMs: 0,
  stopReason: success ? "success" : "budget",
});

const fast = episode(100, true, [
  step(1, "Read the scene first.", 0, SCENE_READ, "get_level_state"),
  step(2, "Skill s0_1 applies: drop on the platform's left end.", -1.5, rollout("(2.10, -2.40)", "(3.50, -2.70)", false)),
  step(
    3,
    "The ball flew short: skill s0_1's condition held but the drop was too low; move right.\n\n[reasoning] The catapult arm is 4.25 m long; a drop 0.4 m further out gives more lever arm and the green ball a longer flight.",
    -1.1,
    rollout("(3.40, -2.30)", "(3.50, -2.70)", true),
  ),
]);
const failed = episode(
  101,
  false,
  Array.from({ length: 8 }, (_, i) =>
    step(i + 1, `Try x=${(i * 0.3 - 2).toFixed(1)}.`, i * 0.3 - 2, rollout(`(${(i * 0.4 - 3).toFixed(2)}, -3.60)`, "(3.50, -2.70)", false)),
  ),
);
const labelled = labelTrajectories([fast, failed]);

const context = (mode: EvolverContext["mode"] = "labelled"): EvolverContext => ({
  words: INTERPHYRE_WORDS,
  level: "catapult",
  description: getLevel("catapult").description,
  caps: { skills: 10, mistakes: 5 },
  mode,
  maxTurns: 8,
});

const BANK: Bank = {
  skills: [
    {
      kind: "skill",
      id: "s0_1",
      title: "Drop on the platform's left end",
      principle: "A ball dropped on the left end of the gray platform tips it so the right end flings the green ball up and right.",
      whenToApply: "The green ball rests on the platform's right end.",
      example: "x=-1.5, y=4, radius=0.5 on seed 100",
      sourceType: "contrastive",
      sourceSeeds: [100],
      generation: 0,
      weight: 0.8,
      parents: [],
      evidence: { sumR: 0.6, count: 1 },
    },
  ],
  mistakes: [
    {
      kind: "mistake",
      id: "m0_1",
      description: "Dropping the ball on the platform's pivot",
      rootCause: "Assumed any hit launches the green ball",
      correction: "Hit the end away from the green ball",
      sourceSeeds: [101],
      generation: 0,
      weight: 0.33,
      parents: [],
      evidence: { sumR: -0.5, count: 1 },
    },
  ],
};

const asText = (p: { system: string; user: string }) => `=== system ===\n${p.system}\n=== user ===\n${p.user}\n`;

describe("the evolver's prompts", () => {
  it("render the contrastive, failures and evolve passes as their golden files", () => {
    expectGolden("evolver-contrastive.txt", asText(contrastivePrompt(context(), [labelled[0]!], [labelled[1]!])));
    expectGolden("evolver-failures.txt", asText(failuresPrompt(context(), [labelled[1]!])));
    expectGolden("evolver-evolve.txt", asText(evolvePrompt(context(), BANK, labelled)));
  });

  it("show every step of a long episode with each rollout's outcome line and both goal objects' final states", () => {
    const { user } = failuresPrompt(context(), [labelled[1]!]);
    const turns = user.split(/\n(?=turn \d+\n)/).slice(1);
    expect(turns).toHaveLength(8);
    for (const t of turns) {
      const lines = t.split("\n");
      expect(lines[1]).toMatch(/^ {2}thought: Try x=/);
      expect(lines[2]).toMatch(/^ {2}action: simulate_action x=/);
      expect(lines[3]).toMatch(/^ {2}← FAILURE after 600 steps/);
      // The goal pair right after the outcome line, in the goal's order, though the tool listed basket first.
      expect(lines[4]).toMatch(/^ {2}← - green_ball at \(/);
      expect(lines[5]).toMatch(/^ {2}← - blue_ball at \(3\.50, -2\.70\)/);
      expect(t).not.toContain("gray_ball at");
    }
    expect(user).toContain("scene: catapult seed 101: green_ball must touch blue_ball for 3 s; green_ball ball r");
  });

  it("show a long episode's middle turns compactly, still with each action, outcome line and goal objects", () => {
    const long = episode(
      102,
      false,
      Array.from({ length: 25 }, (_, i) =>
        step(i + 1, `Try x=${i}. ${"Because ".repeat(60)}`, i * 0.1 - 2, rollout(`(${i}.00, -3.60)`, "(3.50, -2.70)", false)),
      ),
    );
    const text = failuresPrompt({ ...context(), maxTurns: 25 }, labelTrajectories([{ ...long, maxTurns: 25 }])).user;
    const turns = text.split(/\n(?=turn \d+\n)/).slice(1);
    expect(turns).toHaveLength(25);
    expect(text).toContain("(turns 4–20 shown compactly: a shorter thought, the action, the first 3 outcome lines)");
    for (const t of turns) {
      expect(t).toMatch(/^turn \d+\n {2}thought: Try x=\d+\..*\n {2}action: simulate_action x=/);
      expect(t).toMatch(/\n {2}← FAILURE.*\n {2}← - green_ball at \(\d+\.00, -3\.60\).*\n {2}← - blue_ball at/);
    }
    expect(turns[10]).not.toContain("red_ball first contacts");
    expect(turns[24]).toContain("red_ball first contacts");
    expect(text.length).toBeLessThan(17_000); // every turn in full: over 20,000
  });

  it("put a reasoning model's answer before its reasoning, and keep the scene read of turn 1", () => {
    const { user } = contrastivePrompt(context(), [labelled[0]!], [labelled[1]!]);
    expect(user).toContain("turn 1\n  thought: Read the scene first.\n  action: get_level_state {}\n  ← Level catapult (seed 100).");
    expect(user).toMatch(/thought: The ball flew short: skill s0_1's condition held.*\n {2}reasoning: The catapult arm/);
  });

  it("show each step as it happened: a thought under the outcome of the call it was written for, never of the call before", () => {
    const { user } = contrastivePrompt(context(), [labelled[0]!], [labelled[1]!]);
    // Turn 3's thought reacts to turn 2's short flight and comes before turn 3's call and its SUCCESS.
    const turn3 = user.slice(user.indexOf("turn 3\n"), user.indexOf("## failures"));
    expect(turn3.indexOf("thought: The ball flew short")).toBeLessThan(turn3.indexOf("action: simulate_action x=-1.10"));
    expect(turn3.indexOf("action: simulate_action x=-1.10")).toBeLessThan(turn3.indexOf("← SUCCESS at step 301"));
    const turn2 = user.slice(user.indexOf("turn 2\n"), user.indexOf("turn 3\n"));
    expect(turn2).not.toContain("The ball flew short");
    expect(contrastivePrompt(context(), [labelled[0]!], []).system).toContain(
      "the thought the model wrote before the call, the call (action), then what the call returned",
    );
  });

  it("say that r counts the turns an episode used, failures included, and that failures come lowest r first", () => {
    const { system } = contrastivePrompt(context(), [labelled[0]!], []);
    expect(system).toContain("r counts the turns an episode used, a failure's too");
    expect(system).not.toContain("an unsolved episode used every turn");
    expect(failuresPrompt(context(), [labelled[1]!]).user).toContain("Study these failed runs (lowest r first).");
  });

  it("offer the paper's prune reasons, too narrow included, and say when low_weight applies", () => {
    const { user } = evolvePrompt(context(), BANK, labelled);
    expect(user).toContain('"why": "redundant" | "contradicted" | "too_narrow" | "low_weight"');
    expect(user).toContain("low_weight only when its weight is below 0.3");
  });

  it("say how a weight follows from the cited trajectories only when trajectories carry r", () => {
    expect(contrastivePrompt(context(), [labelled[0]!], []).system).toMatch(/citing a failed trajectory \(negative r\) lowers a skill's weight/);
    const ablation = contrastivePrompt(context("no_reward"), [labelled[0]!], []);
    expect(ablation.system).not.toMatch(/weight is|r \+1/);
    expect(ablation.user).not.toMatch(/ r [+-]\d|category/);
  });

  it("ask the failures pass for mistakes only where the runs show them, with the batch's counts", () => {
    const { user } = failuresPrompt(context(), [labelled[1]!]);
    expect(user).toMatch(/^The runs below: 0 successes and 1 failure\./);
    expect(user).not.toMatch(/3–5 mistakes|1–2 partial/);
    expect(user).toContain("answer with an empty list");
  });
});
