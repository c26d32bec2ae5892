import { describe, expect, it } from "vitest";
import { applyEvent, BankEvent, EMPTY_BANK, foldEvents, type Bank } from "./bank.ts";
import { isActive, retiredReason, type Lesson, type LessonTier } from "./lesson.ts";
import { heuristicMerger, lessonMergeEvents, normalised, tokenOverlap, type LessonMerger } from "./lesson-merge.ts";

/** A bank of lessons entered by add events at round 1, the i-th with `texts[i]` and `tiers[i]` (STRONG if absent). */
const logOf = (texts: readonly string[], tiers: readonly LessonTier[] = []): BankEvent[] =>
  texts.map((text, i) =>
    BankEvent.parse({
      schemaVersion: 1,
      type: "lesson_added",
      round: 1 + Math.floor(i / 5),
      entry: { kind: "lesson", id: `l${i}`, text, tier: tiers[i] ?? "STRONG", generation: 1 + Math.floor(i / 5), parents: [], history: [] },
    }),
  );

const distinct = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `Distinct rule number ${from + i}: term${from + i} alpha${from + i} beta${from + i}.`);

const active = (b: Bank): Lesson[] => (b.lessons ?? []).filter(isActive);

describe("the lessons' merge rule", () => {
  it("reads lessons that differ only in case and punctuation as one, and measures word overlap", () => {
    expect(normalised("Keep the torso UPRIGHT!")).toBe("keep the torso upright");
    expect(tokenOverlap("Keep the torso upright", "keep the torso, upright.")).toBe(1);
    expect(tokenOverlap("a b c d", "a b c e")).toBeCloseTo(3 / 5, 12);
  });

  it("does nothing at 12 active lessons or fewer, duplicates included", async () => {
    const events = logOf([...distinct(10), "Land softly.", "land softly"]);
    expect(await lessonMergeEvents(foldEvents(events), 3)).toEqual([]);
  });

  it("above 12 merges duplicates into one lesson with the higher tier, and replays to the same bank", async () => {
    const events = logOf(
      [...distinct(11), "Land softly on the foot.", "land softly on the foot!", "Land softly on the foot, always."],
      [...Array(12).fill("STRONG"), "HARD", "SOFT"],
    );
    const before = foldEvents(events);
    const merged = await lessonMergeEvents(before, 3);
    expect(merged.map((e) => e.type)).toEqual(["lessons_merged"]);
    const m = merged[0]!;
    if (m.type !== "lessons_merged") throw new Error("not a merge");
    expect(m.from).toEqual(["l12", "l11", "l13"]);
    expect(m.entry).toMatchObject({ id: "l3_1", tier: "HARD", text: "land softly on the foot!", parents: ["l12", "l11", "l13"], generation: 3 });
    const after = foldEvents([...events, ...merged.map((e) => BankEvent.parse(JSON.parse(JSON.stringify(e))))]);
    expect(active(after)).toHaveLength(12);
    expect(merged.reduce(applyEvent, before)).toEqual(after);
  });

  it("keeps at most 25 active, retiring the least binding and oldest with the reason 'cap'", async () => {
    // l0, l1 SOFT; l2…l27 STRONG, l2…l4 the oldest (round 1), the later ones added in rounds 2–6.
    const tiers: LessonTier[] = [...Array(2).fill("SOFT"), ...Array(26).fill("STRONG")];
    const bank = foldEvents(logOf(distinct(28), tiers));
    const out = await lessonMergeEvents(bank, 9);
    expect(out.map((e) => (e.type === "lesson_tier_changed" ? [e.id, e.from, e.to, e.by] : e.type))).toEqual([
      ["l4", "STRONG", "RETIRED", "cap"],
      ["l0", "SOFT", "RETIRED", "cap"],
      ["l1", "SOFT", "RETIRED", "cap"],
    ]);
    const after = out.reduce(applyEvent, bank);
    expect(active(after)).toHaveLength(25);
    expect(retiredReason(after.lessons!.find((l) => l.id === "l0")!)).toMatch(/over the cap of 25 active lessons/);
  });

  it("keeps at most 25 retired lessons, pruning the least recently retired", async () => {
    const events = logOf(distinct(27));
    const retire = events.map((_, i) =>
      BankEvent.parse({
        schemaVersion: 1,
        type: "lesson_tier_changed",
        round: 10 + i,
        id: `l${i}`,
        from: "STRONG",
        to: "RETIRED",
        reason: "wrong",
        by: "reviser",
      }),
    );
    const bank = foldEvents([...events, ...retire]);
    const out = await lessonMergeEvents(bank, 40);
    expect(out.map((e) => (e.type === "prune" ? [e.id, e.why] : e.type))).toEqual([
      ["l1", "cap"],
      ["l0", "cap"],
    ]);
    expect(out.reduce(applyEvent, bank).lessons).toHaveLength(25);
  });

  it("takes its groups from an injected merger, and refuses an answer naming an unknown or doubly used lesson", async () => {
    const bank = foldEvents(logOf(distinct(13)));
    const merger: LessonMerger = async () => [{ from: ["l0", "l1"], text: "Both rules at once.", reason: "the model saw one idea" }];
    const [e] = await lessonMergeEvents(bank, 5, merger);
    expect(e).toMatchObject({ type: "lessons_merged", from: ["l0", "l1"], entry: { text: "Both rules at once." }, reason: "the model saw one idea" });
    await expect(lessonMergeEvents(bank, 5, () => [{ from: ["l0", "l99"], text: "t", reason: "r" }])).rejects.toThrow(
      /groups.0.from: not an active lesson \(got 'l99'\)/,
    );
    const twice = [
      { from: ["l0", "l1"], text: "t", reason: "r" },
      { from: ["l1", "l2"], text: "t", reason: "r" },
    ];
    await expect(lessonMergeEvents(bank, 5, () => twice)).rejects.toThrow(/groups.1.from: 'l1' is in two groups/);
    await expect(lessonMergeEvents(bank, 5, () => [{ from: ["l0"], text: "t", reason: "r" }])).rejects.toThrow(/groups.0.from: /);
  });

  it("groups nothing when no two lessons overlap enough", () => {
    expect(heuristicMerger(active(foldEvents(logOf(distinct(13)))))).toEqual([]);
    expect(EMPTY_BANK.lessons).toBeUndefined();
  });
});
