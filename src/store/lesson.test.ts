import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BankEvent, EMPTY_BANK, foldEvents, type Bank } from "./bank.ts";
import { byTier, retiredReason, type Lesson } from "./lesson.ts";
import { lessonAdded, lessonTierChanged } from "./lesson-log.ts";
import { readShippedBank } from "./shipped-bank.ts";

const lesson = (id: string, text: string, extra: Partial<Lesson> = {}): Lesson => ({
  kind: "lesson",
  id,
  text,
  tier: "STRONG",
  generation: 1,
  parents: [],
  history: [],
  ...extra,
});

/** Applies each event as it is made, so the next is made against the bank it leaves; returns the log and the bank. */
const play = (steps: ((b: Bank) => BankEvent)[]): { events: BankEvent[]; bank: Bank } =>
  steps.reduce(
    (acc, step) => {
      const e = step(acc.bank);
      const events = [...acc.events, e];
      return { events, bank: foldEvents(events) };
    },
    { events: [] as BankEvent[], bank: EMPTY_BANK },
  );

describe("lessons as bank events", () => {
  const { events, bank } = play([
    (b) => lessonAdded(b, { text: "Keep the torso upright before the jump.", round: 1, source: "hopper: backflip, iteration 1" }),
    (b) => lessonAdded(b, { text: "Never reward height without a landing term.", round: 1, tier: "HARD", reason: "catastrophic: the policy dived" }),
    (b) => lessonTierChanged(b, { id: "l1_1", to: "SOFT", reason: "iteration 2 landed better without it", by: "reviser", round: 2 }),
    (b) => lessonTierChanged(b, { id: "l1_1", to: "RETIRED", reason: "contradicted by iteration 3's landing", by: "reviser", round: 3 }),
  ]);

  it("enter STRONG by default, keep each tier change with its reason, and show a retired lesson's reason", () => {
    expect(bank.lessons!.map((l) => [l.id, l.tier])).toEqual([
      ["l1_1", "RETIRED"],
      ["l1_2", "HARD"],
    ]);
    const retired = bank.lessons![0]!;
    expect(retired.history).toEqual([
      { round: 2, from: "STRONG", to: "SOFT", reason: "iteration 2 landed better without it", by: "reviser" },
      { round: 3, from: "SOFT", to: "RETIRED", reason: "contradicted by iteration 3's landing", by: "reviser" },
    ]);
    expect(retiredReason(retired)).toBe("contradicted by iteration 3's landing");
    expect(retired.source).toBe("hopper: backflip, iteration 1");
  });

  it("replays from a JSONL log to the same state, at any round", () => {
    const lines = events.map((e) => JSON.stringify(e)).join("\n");
    const replayed = lines.split("\n").map((l) => BankEvent.parse(JSON.parse(l)));
    expect(foldEvents(replayed)).toEqual(bank);
    expect(foldEvents(replayed, 2).lessons!.map((l) => l.tier)).toEqual(["SOFT", "HARD"]);
  });

  it("leaves a bank with no lesson event without a lessons field", () => {
    expect(Object.keys(foldEvents([]))).toEqual(["skills", "mistakes"]);
  });

  it("refuses a tier change without a reason, to the same tier, or of a missing lesson, naming the field", () => {
    expect(() => lessonTierChanged(bank, { id: "l1_2", to: "SOFT", reason: "  ", by: "reviser", round: 4 })).toThrow(/lesson.reason: empty/);
    expect(() => lessonTierChanged(bank, { id: "l1_2", to: "HARD", reason: "x", by: "reviser", round: 4 })).toThrow(/lesson.tier: 'l1_2' is already HARD/);
    expect(() => lessonTierChanged(bank, { id: "l9", to: "SOFT", reason: "x", by: "reviser", round: 4 })).toThrow(
      /lesson.id: no such lesson \(got "l9"\); use one of l1_1, l1_2/,
    );
  });

  it("refuses, on replay, a tier change whose from disagrees, an add as RETIRED, and a merge that lowers the tier", () => {
    const stale = BankEvent.parse({
      schemaVersion: 1,
      type: "lesson_tier_changed",
      round: 4,
      id: "l1_2",
      from: "STRONG",
      to: "SOFT",
      reason: "r",
      by: "reviser",
    });
    expect(() => foldEvents([...events, stale])).toThrow(/from STRONG, but it is HARD/);
    expect(() => BankEvent.parse({ schemaVersion: 1, type: "lesson_added", round: 1, entry: lesson("x", "t", { tier: "RETIRED" }) })).toThrow(
      /RETIRED only with the change that retired it/,
    );
    const extra = BankEvent.parse({ schemaVersion: 1, type: "lesson_added", round: 4, entry: lesson("l4_1", "Land on the foot.") });
    const lowered = BankEvent.parse({ schemaVersion: 1, type: "lessons_merged", round: 4, from: ["l1_2", "l4_1"], entry: lesson("l4_2", "t"), reason: "same" });
    expect(() => foldEvents([...events, extra, lowered])).toThrow(/into a STRONG lesson from a HARD one; the higher tier wins/);
  });

  it("orders by tier, then the most recent change", () => {
    const ls = [
      lesson("a", "a", { tier: "SOFT" }),
      lesson("b", "b", { generation: 1 }),
      lesson("c", "c", { generation: 3 }),
      lesson("d", "d", { tier: "HARD" }),
    ];
    expect(byTier(ls).map((l) => l.id)).toEqual(["d", "c", "b", "a"]);
  });
});

describe("a bank file with lessons", () => {
  const dir = mkdtempSync(join(tmpdir(), "hexa-lessons-"));
  const file = (name: string, body: object) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify({ schemaVersion: 1, level: "hopper_hop", source: "test", skills: [], mistakes: [], ...body }));
    return path;
  };

  it("reads its lessons, tiers and history", () => {
    const l = lesson("l1_1", "Land on the foot.", { tier: "RETIRED", history: [{ round: 2, from: "STRONG", to: "RETIRED", reason: "wrong", by: "reviser" }] });
    expect(readShippedBank(file("ok.json", { lessons: [l] })).lessons).toEqual([l]);
  });

  it("refuses a stranger's oversize or unknown lesson field, naming the lesson and the field", () => {
    const long = file("long.json", { lessons: [lesson("l1_1", "x".repeat(1001))] });
    expect(() => readShippedBank(long)).toThrow(/lesson 'l1_1' \(lessons\[0\]\): text: .*1000/);
    const tier = file("tier.json", { lessons: [{ ...lesson("l1_1", "t"), tier: "MEDIUM" }] });
    expect(() => readShippedBank(tier)).toThrow(/lessons\[0\]\): tier: .*\(got "MEDIUM"\)/);
    const extra = file("extra.json", { lessons: [{ ...lesson("l1_1", "t"), run: "rm -rf" }] });
    expect(() => readShippedBank(extra)).toThrow(/lessons\[0\]\): \(entry\): Unrecognized key/);
    const many = file("many.json", { lessons: Array.from({ length: 201 }, (_, i) => lesson(`l${i}`, "t")) });
    expect(() => readShippedBank(many)).toThrow(/many.json: lessons: /);
  });

  it("reads an old bank without lessons unchanged (no lessons field)", () => {
    const path = join(import.meta.dirname, "../../skills/banks/catapult.heuristic.json");
    const bank = readShippedBank(path);
    expect("lessons" in bank).toBe(false);
    const raw = JSON.parse(readFileSync(path, "utf8")) as { skills: unknown[] };
    expect(bank.skills.length).toBe(raw.skills.length);
  });
});
