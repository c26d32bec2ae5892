import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCertified } from "../../levels/interphyre/certified-seeds.ts";
import { interphyreFamily } from "../../levels/interphyre/family.ts";
import type { Lesson } from "../store/lesson.ts";
import { readShippedBank } from "../store/shipped-bank.ts";
import { transferBank, type ResolvedSource } from "./transfer.ts";

/** `hexa transfer` carries the sources' lessons, tiers and history to the target's bank (docs/spec/method.md §3.1, §6). */

const family = interphyreFamily((level) => readCertified(level)!.seeds.map((s) => s.seed));
const dir = mkdtempSync(join(tmpdir(), "hexa-transfer-lessons-"));

const lesson = (id: string, text: string, tier: Lesson["tier"], history: Lesson["history"] = []): Lesson => ({
  kind: "lesson",
  id,
  text,
  tier,
  generation: 1,
  parents: [],
  history,
});

/** A source as readSource gives it: the level's shipped bank, with `lessons` added. */
const source = (level: string, lessons: Lesson[]): ResolvedSource => {
  const path = join(import.meta.dirname, `../../skills/banks/${level}.heuristic.json`);
  const shipped = JSON.parse(readFileSync(path, "utf8")) as { level: string };
  const file = join(dir, `${level}.json`);
  writeFileSync(file, JSON.stringify({ ...shipped, lessons }));
  const b = readShippedBank(file);
  return { level, from: file, description: family.describe(level), bank: { skills: b.skills, mistakes: b.mistakes, lessons: b.lessons! } };
};

describe("hexa transfer's lessons", () => {
  it("reach the target's bank with tiers, reasons and where they were learned, and read back from the file", async () => {
    const retired = lesson("l2_1", "Place the ball on the pivot.", "RETIRED", [
      { round: 2, from: "STRONG", to: "RETIRED", reason: "the lever never turned", by: "reviser" },
    ]);
    const sources = [
      source("two_body_problem", [lesson("l1_1", "Drop the ball from high above its target.", "HARD"), retired]),
      source("down_to_earth", [lesson("l1_1", "Wait for contact before judging a placement.", "SOFT")]),
    ];
    const out = join(dir, "out", "bank.json");
    const { bank } = await transferBank({ family, target: "catapult", sources, synthesiser: "heuristic", out, now: new Date(0) });
    expect(bank.lessons!.map((l) => [l.id, l.tier, l.source])).toEqual([
      ["two_body_problem_l1_1", "HARD", "two_body_problem"],
      ["two_body_problem_l2_1", "RETIRED", "two_body_problem"],
      ["down_to_earth_l1_1", "SOFT", "down_to_earth"],
    ]);
    const read = readShippedBank(out);
    expect(read.lessons).toEqual(bank.lessons);
    expect(read.lessons![1]!.history[0]!.reason).toBe("the lever never turned");
  });

  it("merge duplicates across sources above 12 active lessons, the higher tier winning", async () => {
    const distinct = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => lesson(`l${i}`, `Rule ${tag}${i}: term${tag}${i} alpha${tag}${i}.`, "STRONG"));
    const sources = [
      source("two_body_problem", [...distinct(6, "a"), lesson("l9", "Never let the ball rest on the pivot.", "SOFT")]),
      source("down_to_earth", [...distinct(6, "b"), lesson("l9", "never let the ball rest on the pivot", "HARD")]),
    ];
    const { bank } = await transferBank({
      family,
      target: "catapult",
      sources,
      synthesiser: "heuristic",
      out: join(dir, "merged", "bank.json"),
      now: new Date(0),
    });
    expect(bank.lessons).toHaveLength(13);
    const merged = bank.lessons!.find((l) => l.parents.length === 2)!;
    expect(merged).toMatchObject({ tier: "HARD", parents: ["down_to_earth_l9", "two_body_problem_l9"] });
  });

  it("leave a transfer without lessons with no lessons field", async () => {
    const plain = ["two_body_problem", "down_to_earth"].map((level) => {
      const s = source(level, []);
      return { ...s, bank: { skills: s.bank.skills, mistakes: s.bank.mistakes } };
    });
    const { bank } = await transferBank({
      family,
      target: "catapult",
      sources: plain,
      synthesiser: "heuristic",
      out: join(dir, "plain", "bank.json"),
      now: new Date(0),
    });
    expect("lessons" in bank).toBe(false);
  });
});
