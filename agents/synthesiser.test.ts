import { afterEach, describe, expect, it } from "vitest";
import { getLevel } from "../levels/interphyre/levels/index.ts";
import { INTERPHYRE_WORDS } from "../levels/interphyre/family.ts";
import { ModelOutputError } from "../src/errors.ts";
import type { BankEntry } from "../src/store/bank.ts";
import { readShippedBank } from "../src/store/shipped-bank.ts";
import type { ScriptItem } from "../test/support/fake-openai-server.ts";
import { scriptedRole } from "../test/support/scripted-role.ts";
import { synthesise } from "./synthesiser.ts";
import { auditSynthesis, inventedNumbers, unknownObjects, type AuditContext } from "./synthesiser-audit.ts";
import { selectSources, type Ranker } from "./synthesiser-select.ts";

/** The LLM synthesiser through the real client against the local OpenAI-compatible server with scripted JSON. */
const fake = scriptedRole("synthesiser");
afterEach(() => fake.close());
const modelFor = fake.modelFor;

const bankOf = (level: string) => {
  const b = readShippedBank(`skills/banks/${level}.heuristic.json`);
  return { skills: b.skills, mistakes: b.mistakes };
};
const sources = ["two_body_problem", "down_to_earth"].map((level) => ({ level, description: getLevel(level).description, bank: bankOf(level) }));
const target = { level: "catapult", description: getLevel("catapult").description };
const CATAPULT_OBJECTS = ["green_ball", "blue_ball", "ledge", "basket", "black_ball", "black_platform", "gray_ball", "gray_platform"];
const ctx: AuditContext = {
  sources,
  targetDescription: target.description,
  targetObjects: CATAPULT_OBJECTS,
  familyObjects: [...CATAPULT_OBJECTS, "purple_ground", "platform", "ramp", "floor"],
  levelIds: ["catapult", "two_body_problem", "down_to_earth"],
};

const cite = (level: string, id: string) => ({ level, id });
const skill = (title: string, cites: { level: string; id: string }[], o: { weight?: number; principle?: string } = {}) => ({
  title,
  principle: o.principle ?? `A falling ball that lands on the green ball's side pushes it toward the blue ball. ${title}.`,
  when_to_apply: "When the green ball rests on the plank.",
  primitive: "a falling ball pushes what it lands on sideways",
  weight: o.weight ?? 0.6,
  cites,
});
const mistake = (description: string, cites: { level: string; id: string }[]) => ({
  description,
  root_cause: "Assumed the green ball moves without being struck.",
  correction: "Strike the green ball so it travels toward the basket.",
  primitive: "momentum transfer",
  weight: 0.5,
  cites,
});
const valid = {
  skills: [
    skill("Drop a large ball onto the plank's right end", [cite("two_body_problem", "s0_1"), cite("down_to_earth", "s0_1")], { weight: 0.8 }),
    skill("Drop a ball onto the green ball from above", [cite("two_body_problem", "s0_2")], { weight: 0.9 }),
    skill("Push the green ball toward the basket", [cite("two_body_problem", "s0_3")]),
    skill("Raise the plank's left end from below", [cite("down_to_earth", "s2_1")]),
    skill("Use the gray ball as a pivot", [cite("down_to_earth", "s5_1")]),
    skill("Aim the flight into the basket", [cite("down_to_earth", "s8_1")]),
  ],
  mistakes: [
    mistake("The green ball falls off the plank without flying", [cite("down_to_earth", "s13_1")]),
    mistake("The ball misses the plank", [cite("two_body_problem", "s3_1")]),
  ],
};
const json = (v: unknown): ScriptItem => ({ text: JSON.stringify(v) });
const byId = (entries: readonly BankEntry[], id: string) => entries.find((e) => e.id === id)!;

describe("synthesise (LLM, docs/spec/method.md §6)", () => {
  it("turns a valid answer into transfer entries that pass the audit, capping a single-source weight ≥ 0.7", async () => {
    const s = await synthesise({ model: await modelFor([json(valid)]), words: INTERPHYRE_WORDS, target, sources });
    expect(s.candidates).toHaveLength(8);
    expect(s.model).toBe("gpt-4.1-mini");
    const { bank, audit } = auditSynthesis(s.candidates, ctx);
    expect([bank.skills.length, bank.mistakes.length]).toEqual([6, 2]);
    expect(bank.skills.every((x) => x.sourceType === "transfer" && x.generation === 0 && x.evidence.count === 0)).toBe(true);
    // Two source levels cited: 0.8 stands; one source level: 0.9 → 0.69, reported.
    expect(byId(bank.skills, "ts1")).toMatchObject({ weight: 0.8, parents: ["two_body_problem/s0_1", "down_to_earth/s0_1"] });
    expect(byId(bank.skills, "ts2").weight).toBe(0.69);
    expect(audit.find((r) => r.id === "ts2")!.flags).toEqual([{ kind: "weight_capped", from: 0.9, to: 0.69, levels: ["two_body_problem"] }]);
    expect(audit.filter((r) => r.id !== "ts2").every((r) => r.flags.length === 0 && !r.dropped)).toBe(true);
    // The prompt: the family's words, the rules, every source entry with its id, the target description.
    const [system, user] = fake.requests[0]!.body.messages.map((m) => String(m.content));
    expect(system).toMatch(/physics puzzle level "catapult" by placing a red ball/);
    expect(system).toMatch(/Invent no concrete coordinates, radii/);
    expect(system).toMatch(/≥ 0\.7 only if the primitive appears in ≥ 2 source banks/);
    expect(user).toContain(target.description);
    expect(user).toMatch(/## source level: down_to_earth[\s\S]*- \[s13_2\] skill/);
  });

  it("drops an entry citing a missing id, and removes a missing citation beside a real one; both reported", async () => {
    const answer = structuredClone(valid);
    answer.skills[2]!.cites = [cite("two_body_problem", "s9_9")];
    answer.skills[3]!.cites = [cite("down_to_earth", "s2_1"), cite("catapult", "s0_1")];
    const s = await synthesise({ model: await modelFor([json(answer)]), words: INTERPHYRE_WORDS, target, sources });
    const { bank, audit } = auditSynthesis(s.candidates, ctx);
    expect(bank.skills.map((x) => x.id)).toEqual(["ts1", "ts2", "ts4", "ts5", "ts6"]);
    expect(audit.find((r) => r.id === "ts3")).toMatchObject({
      dropped: true,
      flags: [{ kind: "missing_citation", level: "two_body_problem", id: "s9_9" }, { kind: "no_real_citation" }],
    });
    expect(audit.find((r) => r.id === "ts4")).toMatchObject({
      dropped: false,
      cites: [cite("down_to_earth", "s2_1")],
      flags: [{ kind: "missing_citation", level: "catapult", id: "s0_1" }],
    });
  });

  it("flags an object the target lacks and invented coordinates, keeping the entries", async () => {
    const answer = structuredClone(valid);
    answer.skills[4]!.principle = "Let the green ball roll down to the purple ground, then onto the ramp.";
    answer.skills[5]!.principle = "Place the red ball at x = -2.5, y = 1.2 with radius 0.8m; the green ball must touch the blue ball for 3 seconds.";
    const s = await synthesise({ model: await modelFor([json(answer)]), words: INTERPHYRE_WORDS, target, sources });
    const { bank, audit } = auditSynthesis(s.candidates, ctx);
    expect(bank.skills).toHaveLength(6);
    expect(audit.find((r) => r.id === "ts5")!.flags).toEqual([
      { kind: "unknown_object", name: "purple_ground", field: "principle" },
      { kind: "unknown_object", name: "ramp", field: "principle" },
    ]);
    // 3 is in the target description ("3 seconds"); the others are not.
    expect(audit.find((r) => r.id === "ts6")!.flags).toEqual(["2.5", "1.2", "0.8"].map((value) => ({ kind: "invented_number", value, field: "principle" })));
  });

  it("retries once after malformed JSON, then fails clearly", async () => {
    const ok = await synthesise({ model: await modelFor([{ text: "Here is the bank: {skills: [" }, json(valid)]), words: INTERPHYRE_WORDS, target, sources });
    expect(ok.candidates).toHaveLength(8);
    const model = await modelFor([{ text: "not json" }, json({ skills: valid.skills.slice(0, 2), mistakes: [] })]);
    await expect(synthesise({ model, words: INTERPHYRE_WORDS, target, sources })).rejects.toThrow(ModelOutputError);
    await expect(synthesise({ model, words: INTERPHYRE_WORDS, target, sources })).rejects.toThrow(); // script exhausted: no silent success
  });
});

describe("audit checks", () => {
  it("reads names and numbers as the target describes them", () => {
    expect(unknownObjects("the gray ball and the gray_platform; from two_body_problem", ctx)).toEqual([]);
    expect(unknownObjects("roll it across the floor onto a platform", ctx)).toEqual(["floor"]); // "platform" is in catapult's description
    expect(unknownObjects("anything at all", { ...ctx, targetObjects: undefined })).toEqual([]); // no hook: skipped
    expect(inventedNumbers("ids s0_1 and x1 are names; hold 3 s; move 0.25 m, −1.5 or 2.5m", "hold for 3 seconds within 0.25 m")).toEqual(["1.5", "2.5"]);
  });
});

describe("selectSources (Chroma's pick when source banks exceed one prompt)", () => {
  // A fake ranker: similarity = the entry's weight, so the choice is easy to state.
  const rank: Ranker = async (_q, entries) => new Map(entries.map((e) => [`${e.level}/${e.entry.id}`, e.entry.weight]));

  it("passes small sources unchanged without ranking", async () => {
    let called = false;
    const out = await selectSources(sources, "q", async (q, e) => ((called = true), rank(q, e)), 100);
    expect([out.selected, called, out.sources[1]!.bank.skills.length]).toEqual([false, false, 7]);
  });

  it("keeps the most relevant entries over all sources, each source keeping at least its best one", async () => {
    const out = await selectSources(sources, target.description, rank, 4);
    expect(out.selected).toBe(true);
    const kept = out.sources.flatMap((s) => s.bank.skills.map((e) => `${s.level}/${e.id}`));
    expect(kept).toHaveLength(4);
    // Weight order: two_body s0_2 1.00, s0_3 1.00, down_to_earth s0_1 1.00, two_body s0_1 0.98 …; down_to_earth keeps its best.
    expect(kept.sort()).toEqual(["down_to_earth/s0_1", "two_body_problem/s0_1", "two_body_problem/s0_2", "two_body_problem/s0_3"].sort());
    const one = await selectSources(sources, target.description, async () => new Map([["down_to_earth/s13_2", 0.9]]), 2);
    expect(one.sources.map((s) => s.bank.skills.length)).toEqual([1, 1]);
    expect(one.sources[1]!.bank.skills[0]!.id).toBe("s13_2");
  });
});
