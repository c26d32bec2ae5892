import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readCertified } from "../../levels/interphyre/certified-seeds.ts";
import { interphyreFamily } from "../../levels/interphyre/family.ts";
import { foldEvents } from "../store/bank.ts";
import type { Lesson } from "../store/lesson.ts";
import { RunDir } from "../store/run-dir.ts";
import { readShippedBanks } from "../store/shipped-bank.ts";
import { parseRunConfig, runConfigYaml } from "./run-config.ts";
import { runLoop } from "./run-loop.ts";

/** Lessons in a shipped (or transferred) bank enter a run with their tiers and history (docs/spec/method.md §3.1). */

const family = interphyreFamily((level) => readCertified(level)!.seeds.map((s) => s.seed));
const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

const lessons: Lesson[] = [
  { kind: "lesson", id: "l1_1", text: "Drop the ball from above the lever's far arm.", tier: "HARD", generation: 1, parents: [], history: [] },
  {
    kind: "lesson",
    id: "l2_1",
    text: "Place the ball on the pivot.",
    tier: "RETIRED",
    generation: 2,
    parents: [],
    history: [{ round: 3, from: "STRONG", to: "RETIRED", reason: "the lever never turned", by: "reviser" }],
  },
];

describe("a shipped bank's lessons", () => {
  it("enter round 0 renamed with their tiers and history, stay through the evolver's updates, and are shown to the agent", async () => {
    const cfg = parseRunConfig(
      {
        family: "interphyre",
        levels: ["catapult"],
        agent: "heuristic",
        evolver: "heuristic",
        init: "off2on",
        rounds: 1,
        episodesPerRound: 1,
        seeds: { offset: 56 },
        offline: { banks: ["skills/banks/catapult.heuristic.json"] },
      },
      "cfg",
    );
    const shipped = readShippedBanks(["skills/banks/catapult.heuristic.json"]).get("catapult")!;
    const root = mkdtempSync(join(tmpdir(), "hexa-lessons-run-"));
    roots.push(root);
    const dir = RunDir.create(root, "run", runConfigYaml(cfg), new Date(0));
    await runLoop(cfg, { family, dir, now: () => 0, shippedBank: () => ({ ...shipped, lessons }) });
    const events = dir.bankLog().events.get("catapult")!;
    const added = events.filter((e) => e.type === "lesson_added");
    expect(added.map((e) => [e.round, e.reason])).toEqual([
      [0, "shipped bank"],
      [0, "shipped bank"],
    ]);
    const bank = foldEvents(events);
    expect(bank.lessons).toEqual(lessons.map((l) => ({ ...l, id: `shipped_${l.id}` })));
    expect(dir.snapshots().at(-1)!.banks.catapult!.lessons).toEqual(bank.lessons);
    const [episode] = dir.episodes();
    expect(episode!.retrieved).toEqual(expect.arrayContaining(["shipped_l1_1", "shipped_l2_1"]));
  });
});
