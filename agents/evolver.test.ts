import { afterEach, describe, expect, it } from "vitest";
import { applyEvent, foldEvents, type Bank, type BankEvent } from "../src/store/bank.ts";
import type { ScriptItem } from "../test/support/fake-openai-server.ts";
import { scriptedRole } from "../test/support/scripted-role.ts";
import { INTERPHYRE_WORDS } from "../levels/interphyre/family.ts";
import { REWARD_SEARCH_WORDS } from "../levels/reward-search/family.ts";
import { distil, evolve, labelTrajectories, replace } from "./evolver.ts";
import { NO_USAGE, type Trajectory } from "../src/store/trajectory.ts";

/** The LLM evolver through the real client against the local OpenAI-compatible server with scripted JSON. */
const fake = scriptedRole("evolver");
afterEach(() => fake.close());
const modelFor = fake.modelFor;

/** `used` turns were played; a failure counts the whole budget (docs/spec/method.md §1.1). */
const traj = (seed: number, success: boolean, used: number): Trajectory => ({
  schemaVersion: 2,
  level: "two_body_problem",
  seed,
  agent: "react",
  model: "m",
  success,
  turns: success ? used : 25,
  maxTurns: 25,
  action: { x: -4, y: -1, radius: 0.5 },
  steps: Array.from({ length: used }, (_, i) => ({
    turn: i + 1,
    thought: `thought ${i + 1}`,
    tool: "simulate_action",
    args: { x: -4, y: -1, radius: 0.5 },
    observation: `obs ${i + 1} ${"z".repeat(900)}`,
    ok: true,
    ms: 1,
  })),
  usage: NO_USAGE,
  wallMs: 0,
  stopReason: success ? "success" : "budget",
});

// r: t1 +1.0 (2 turns), t2 +0.75 (6), t3 −0.5 (25, exploratory), t4 −0.75 (5, early abandon); batch mean 0.125.
const round1 = labelTrajectories([traj(10, true, 2), traj(11, true, 6), traj(12, false, 25), traj(13, false, 5)]);
const json = (v: unknown): ScriptItem => ({ text: JSON.stringify(v) });
const skill = (title: string, sources: string[]) => ({ title, principle: `${title} principle.`, when_to_apply: "always", sources });
const contrastive = json({ skills: [skill("hit the blue ball from the left", ["t1", "t2"]), skill("uncited", [])] });
const failures = json({
  mistakes: [{ description: "ball drops short", root_cause: "assumed no bounce", correction: "start higher", sources: ["t3", "t4"] }],
  partial_skills: [skill("right region, too small", ["t1", "t3"])],
});
const w = (meanR: number) => Math.min(1, Math.max(0.1, (meanR + 1) / 2));
const userText = (i: number) => String(fake.requests[i]!.body.messages.at(-1)!.content);

const distilled = async (): Promise<BankEvent[]> =>
  distil({ words: INTERPHYRE_WORDS, model: await modelFor([contrastive, failures]), round: 1, level: "two_body_problem", labelled: round1 });

describe("distil", () => {
  it("turns the two passes into add events weighted per docs/spec/method.md §3, after one malformed answer", async () => {
    const model = await modelFor([{ text: "Sure! Here are the skills" }, contrastive, failures]);
    const events = await distil({ words: INTERPHYRE_WORDS, model, round: 1, level: "two_body_problem", labelled: round1 });
    expect(events.map((e) => e.type)).toEqual(["add", "add", "add", "add"]);
    const bank = foldEvents(events);
    expect(bank.skills.map((s) => [s.id, s.sourceType, s.weight, s.sourceSeeds])).toEqual([
      ["s1_1", "contrastive", w(0.875), [10, 11]],
      ["s1_2", "contrastive", w(0.125), []],
      ["s1_3", "partial", 0.5, [10, 12]], // (1 − 0.5) / 2 = 0.25 → 0.625, capped at 0.5
    ]);
    expect(bank.skills[0]!.evidence).toEqual({ sumR: 1.75, count: 2 });
    expect(bank.mistakes).toMatchObject([{ id: "m1_1", weight: 2 / 4, rootCause: "assumed no bounce", sourceSeeds: [12, 13] }]); // two cited failures: n / (n + 2)
    expect(fake.requests).toHaveLength(3);
    expect(userText(1)).toMatch(/not JSON/);
    const prompt = String(fake.requests[0]!.body.messages[1]!.content);
    expect(prompt).toMatch(/trajectory t1 · seed 10 · success yes · turns 2\/25 · category fast_success · r \+1\.00/);
    // every step, the first included, as it happened: the thought before the call, the call before its outcome
    expect(prompt).toMatch(/turn 1\n {2}thought: thought 1\n {2}action: simulate_action x=-4\.00, y=-1\.00, radius=0\.50\n {2}← obs 1 z/);
    expect(prompt).not.toMatch(/z{501}/);
    expect(prompt.indexOf("trajectory t4")).toBeLessThan(prompt.indexOf("trajectory t3")); // worst failures first
    expect(String(fake.requests[0]!.body.messages[0]!.content)).toMatch(/at most 10 skills and 5 mistakes/);
  });

  it("retries when a source id is unknown, naming it", async () => {
    const bad = json({ skills: [skill("x", ["t9"])] });
    const events = await distil({
      words: INTERPHYRE_WORDS,
      model: await modelFor([bad, contrastive, failures]),
      round: 1,
      level: "two_body_problem",
      labelled: round1,
    });
    expect(events).toHaveLength(4);
    expect(userText(1)).toMatch(/unknown trajectory id\(s\) t9/);
  });

  it("gives one evolver_failure event after two bad answers, leaving the bank unchanged", async () => {
    const before = foldEvents(await distilled());
    const events = await evolve({
      words: INTERPHYRE_WORDS,
      model: await modelFor([{ text: "{not json" }, json({ ops: [{ op: "keep" }] })]),
      round: 2,
      level: "two_body_problem",
      bank: before,
      labelled: round1,
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "evolver_failure", round: 2 });
    expect(events.reduce(applyEvent, before)).toEqual(before);
  });

  it("enforces the caps on the folded result, pruning the lightest", async () => {
    const model = await modelFor([contrastive, failures]);
    const events = await distil({ words: INTERPHYRE_WORDS, model, round: 1, level: "two_body_problem", labelled: round1, caps: { skills: 2, mistakes: 0 } });
    expect(events.filter((e) => e.type === "prune").map((e) => e.type === "prune" && [e.id, e.why])).toEqual([
      ["s1_3", "cap"],
      ["m1_1", "cap"],
    ]);
    expect(foldEvents(events).skills.map((s) => s.id)).toEqual(["s1_1", "s1_2"]);
  });

  it("hides r and keeps input order in the no-reward ablation, with unweighted entries", async () => {
    const model = await modelFor([contrastive, failures]);
    const events = await distil({ words: INTERPHYRE_WORDS, model, round: 1, level: "two_body_problem", labelled: round1, mode: "no_reward" });
    const bank = foldEvents(events);
    expect([...bank.skills, ...bank.mistakes].map((e) => e.weight)).toEqual([0.5, 0.5, 0.5, 0.5]);
    const prompt = String(fake.requests[0]!.body.messages[1]!.content);
    expect(prompt).not.toMatch(/ r [+-]\d|category/);
    expect(prompt.indexOf("trajectory t3")).toBeLessThan(prompt.indexOf("trajectory t4"));
  });
});

// Round 2: t5 +1.0 (seed 20), t6 −0.5 (seed 21).
const round2 = labelTrajectories([traj(20, true, 3), traj(21, false, 12)], ["t5", "t6"]);

describe("evolve and replace", () => {
  it("translates keep / merge / revise / add / prune into events with running-mean weights", async () => {
    const bank: Bank = foldEvents(await distilled());
    const ops = {
      ops: [
        { op: "keep", id: "s1_1", sources: ["t5"] },
        {
          op: "merge",
          from: ["s1_2", "s1_3"],
          entry: { kind: "skill", title: "merged", principle: "p.", when_to_apply: "w" },
          sources: ["t6"],
          reason: "same mechanism",
        },
        { op: "revise", id: "m1_1", entry: { kind: "mistake", description: "d2", root_cause: "rc2", correction: "c2" }, sources: ["t6"], reason: "sharper" },
        { op: "add", entry: { kind: "skill", title: "new", principle: "p.", when_to_apply: "w" }, sources: ["t5", "t6"] },
      ],
    };
    const badId = { ops: [...ops.ops, { op: "prune", id: "s9_9", why: "redundant" }] };
    const events = await evolve({
      words: INTERPHYRE_WORDS,
      model: await modelFor([json(badId), json(ops)]),
      round: 2,
      level: "two_body_problem",
      bank,
      labelled: round2,
    });
    expect(userText(3)).toMatch(/unknown bank id 's9_9'/);
    expect(String(fake.requests[2]!.body.messages[1]!.content)).toMatch(/s1_2\] skill[\s\S]*principle: uncited principle\./);
    expect(events.map((e) => e.type)).toEqual(["reweight", "merge", "revise", "add"]);
    const after = events.reduce(applyEvent, bank);
    const byId = new Map([...after.skills, ...after.mistakes].map((e) => [e.id, e]));
    expect(byId.get("s1_1")).toMatchObject({ weight: w((1 + 0.75 + 1) / 3), evidence: { sumR: 2.75, count: 3 }, generation: 1 });
    // merged: s1_2 had no evidence, s1_3 cited t1, t3 (+0.5 total); plus t6 −0.5 → mean 0 over 3
    expect(byId.get("s2_1")).toMatchObject({
      kind: "skill",
      sourceType: "evolved",
      parents: ["s1_2", "s1_3"],
      weight: w(0),
      sourceSeeds: [10, 12, 21],
      generation: 2,
    });
    expect(byId.get("m1_1")).toMatchObject({ rootCause: "rc2", weight: 3 / 5, parents: ["m1_1"], generation: 2 }); // three cited failures so far
    expect(byId.get("s2_2")).toMatchObject({ weight: w(0.25), sourceSeeds: [20, 21] });
    expect(byId.has("s1_2")).toBe(false);
  });

  it("asks again when an existing id is left out", async () => {
    const bank = foldEvents(await distilled());
    const all = [...bank.skills, ...bank.mistakes].map((e) => ({ op: "keep", id: e.id }));
    const events = await evolve({
      words: INTERPHYRE_WORDS,
      model: await modelFor([json({ ops: all.slice(1) }), json({ ops: [...all.slice(1), { op: "prune", id: "s1_1", why: "contradicted", reason: "t6" }] })]),
      round: 2,
      level: "two_body_problem",
      bank,
      labelled: round2,
    });
    expect(userText(3)).toMatch(/s1_1 not accounted for/);
    expect(events).toEqual([expect.objectContaining({ type: "prune", id: "s1_1", why: "contradicted", reason: "t6" })]);
  });

  it("refuses a low_weight prune of an entry weighing 0.3 or more, accepts too_narrow, and tags a skill added from failures only as partial", async () => {
    const bank = foldEvents(await distilled()); // s1_3 weighs 0.5
    const keepRest = ["s1_1", "s1_2", "m1_1"].map((id) => ({ op: "keep", id }));
    const added = (title: string, sources: string[]) => ({ op: "add", entry: { kind: "skill", title, principle: "p.", when_to_apply: "w" }, sources });
    const lowWeight = { ops: [...keepRest, { op: "prune", id: "s1_3", why: "low_weight", reason: "weak" }] };
    const narrow = {
      ops: [
        ...keepRest,
        { op: "prune", id: "s1_3", why: "too_narrow", reason: "seed 12 only" },
        added("from a failure", ["t6"]),
        added("from both", ["t5", "t6"]),
      ],
    };
    const events = await evolve({
      words: INTERPHYRE_WORDS,
      model: await modelFor([json(lowWeight), json(narrow)]),
      round: 2,
      level: "two_body_problem",
      bank,
      labelled: round2,
    });
    expect(userText(3)).toMatch(/'s1_3' has weight 0\.50, not below 0\.3/);
    expect(events).toContainEqual(expect.objectContaining({ type: "prune", id: "s1_3", why: "too_narrow" }));
    const after = events.reduce(applyEvent, bank);
    expect(after.skills.filter((k) => k.generation === 2).map((k) => [k.title, k.sourceType, k.weight])).toEqual([
      ["from a failure", "partial", w(-0.5)],
      ["from both", "evolved", w(0.25)],
    ]);
    expect(String(fake.requests[2]!.body.messages[1]!.content)).toContain('"too_narrow"');
  });

  it("replaces the whole bank in iterative replacement", async () => {
    const bank = foldEvents(await distilled());
    const events = await replace({
      words: INTERPHYRE_WORDS,
      model: await modelFor([contrastive, failures]),
      round: 2,
      level: "two_body_problem",
      bank,
      labelled: round1,
    });
    const prunes = events.filter((e) => e.type === "prune");
    expect(prunes.map((e) => e.type === "prune" && e.why)).toEqual(["replaced", "replaced", "replaced", "replaced"]);
    const after = events.reduce(applyEvent, bank);
    expect(after.skills.map((s) => s.id)).toEqual(["s2_1", "s2_2", "s2_3"]);
  });
});

describe("the evolver's prompts (read as the model reads them)", () => {
  const systemText = (i: number) => String(fake.requests[i]!.body.messages[0]!.content);

  it("give the level's factual description and the reward table the trajectories are labelled with", async () => {
    await distil({
      words: INTERPHYRE_WORDS,
      model: await modelFor([contrastive, failures]),
      round: 1,
      level: "two_body_problem",
      description: "Two balls rest on a shelf.",
      labelled: round1,
    });
    const system = systemText(0);
    expect(system).toContain("## The level: two_body_problem\nTwo balls rest on a shelf.");
    expect(system).toContain("turn budget T = 25");
    expect(system).toContain("| fast_success | success in 1–3 | +1.00 |");
    expect(system).toContain("| early_abandon_failure | failure after < 10 turns | −0.75 |");
    expect(system).toContain("what hits what");
    expect(system).toContain("object positions and sizes differ from seed to seed");
  });

  it("show no reward table in the no-reward ablation (method.md §7)", async () => {
    await distil({
      words: INTERPHYRE_WORDS,
      model: await modelFor([contrastive, failures]),
      round: 1,
      level: "two_body_problem",
      labelled: round1,
      mode: "no_reward",
    });
    expect(systemText(0)).not.toContain("| fast_success");
  });

  it("ask for no contrastive skills when the batch has no success: only the failures pass is called", async () => {
    const allFailed = labelTrajectories([traj(12, false, 25), traj(13, false, 5)]);
    const fails = json({
      mistakes: [{ description: "ball drops short", root_cause: "assumed no bounce", correction: "start higher", sources: ["t1", "t2"] }],
      partial_skills: [],
    });
    const events = await distil({ words: INTERPHYRE_WORDS, model: await modelFor([fails]), round: 1, level: "two_body_problem", labelled: allFailed });
    expect(fake.requests).toHaveLength(1);
    expect(userText(0)).toMatch(/^The runs below: 0 successes and 2 failures\.\n\nStudy these failed runs/);
    expect(foldEvents(events).skills).toEqual([]);
  });

  it("accept a failures pass that finds no mistake in the runs, keeping the contrastive skills", async () => {
    const none = json({ mistakes: [], partial_skills: [] });
    const events = await distil({ words: INTERPHYRE_WORDS, model: await modelFor([contrastive, none]), round: 1, level: "two_body_problem", labelled: round1 });
    expect(events.map((e) => e.type)).toEqual(["add", "add"]);
    expect(fake.requests).toHaveLength(2);
  });

  it("speak of reward design, not physics, for the reward-search family", async () => {
    await distil({ words: REWARD_SEARCH_WORDS, model: await modelFor([contrastive, failures]), round: 1, level: "pendulum", labelled: round1 });
    const system = systemText(0);
    expect(system).toContain("concrete reward mechanisms");
    expect(system).not.toMatch(/what hits what|physical mechanism/);
    expect(userText(1)).toContain("the right term with the wrong scale or sign");
  });
});
