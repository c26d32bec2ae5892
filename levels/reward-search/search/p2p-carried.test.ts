import { appendFileSync, cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { foldEvents, type BankEvent } from "../../../src/store/bank.ts";
import { lessonTierChanged } from "../../../src/store/lesson-log.ts";
import type { Lesson } from "../../../src/store/lesson.ts";
import { readCarriedLessons, recordedCarriedEvents } from "../../../src/search/p2p-carried.ts";
import type { ReviseContext, Reviser } from "../../../src/search/p2p-ports.ts";
import { tempDirs } from "../../../test/support/temp-files.ts";
import { heuristicReviser } from "../proposers/p2p-heuristic-reviser.ts";
import { revisionMessages } from "../proposers/p2p-prompts.ts";
import { proposalMessages } from "../proposers/proposer-prompts.ts";
import { p2pSearch } from "../report/fixtures/p2p-search.ts";
import type { RewardTask, TaskInstance } from "../task.ts";

/**
 * `hexa search --lessons-from DIR`: a new p2p search starts from an earlier one's lessons (docs/spec/method.md §3.1
 * Carried), written to its own bank-events.jsonl with tiers and history, once, and shown to its reviser.
 */

const tmp = tempDirs("hexa-p2p-carried-");
const bankLog = (dir: string) => readFileSync(join(dir, "bank-events.jsonl"), "utf8");
const eventsOf = (dir: string): BankEvent[] =>
  bankLog(dir)
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as BankEvent);

/** Search A with its first lesson made HARD and its second retired, as the reviser's set_lesson_tier writes them. */
const searchA = async (root: string): Promise<string> => {
  const a = await p2pSearch(root, "hop-a");
  const change = (id: string, to: Lesson["tier"], reason: string) => {
    const e = lessonTierChanged(foldEvents(eventsOf(a)), { id, to, reason, by: "p2p reviser", round: 3 });
    appendFileSync(join(a, "bank-events.jsonl"), `${JSON.stringify(e)}\n`);
  };
  change("l1_1", "HARD", "every later iteration confirmed it");
  change("l2_1", "RETIRED", "iteration 2 scored higher without it");
  return a;
};

/** The heuristic reviser, keeping what each call was given (the LLM reviser's prompts are built from the same). */
const watching = () => {
  type Initial = Parameters<Reviser<RewardTask, TaskInstance>["initial"]>[0];
  const seen: { initial: Initial[]; revise: ReviseContext<RewardTask, TaskInstance>[] } = { initial: [], revise: [] };
  const inner = heuristicReviser();
  const reviser: Reviser<RewardTask, TaskInstance> = {
    ...inner,
    initial: (ctx) => {
      seen.initial.push(ctx);
      return inner.initial(ctx);
    },
    revise: (ctx) => {
      seen.revise.push(ctx);
      return inner.revise(ctx);
    },
  };
  return { reviser, seen };
};

describe("lessons carried into a p2p search (--lessons-from)", () => {
  it("enter B's bank-events.jsonl at iteration 0 with prefixed ids, tiers and history, once, and reach its reviser's prompts", async () => {
    const root = tmp();
    const a = await searchA(root);
    const carried = await readCarriedLessons([a]);
    const { reviser, seen } = watching();
    const b = await p2pSearch(root, "hop-b", { carried, reviser });

    const first = eventsOf(b).slice(0, 2);
    expect(first.map((e) => e.type === "lesson_added" && [e.round, e.entry.id, e.entry.tier, e.reason])).toEqual([
      [0, "hop-a_l1_1", "HARD", "carried from hop-a"],
      [0, "hop-a_l2_1", "RETIRED", "carried from hop-a"],
    ]);
    const retired = (first[1] as Extract<BankEvent, { type: "lesson_added" }>).entry;
    expect(retired.history).toEqual([{ round: 3, from: "STRONG", to: "RETIRED", reason: "iteration 2 scored higher without it", by: "p2p reviser" }]);
    // B's own lessons follow, under its own ids.
    expect(
      eventsOf(b)
        .slice(2)
        .map((e) => e.type === "lesson_added" && e.entry.id),
    ).toContain("l1_1");

    const initial = proposalMessages("initial", { ...seen.initial[0]!, seen: new Set() }, "TASK")[1]!.content as string;
    const hard = foldEvents(eventsOf(a)).lessons!.find((l) => l.id === "l1_1")!;
    expect(initial).toContain(`1. [HARD] ${hard.text}`);
    expect(initial).toContain(`- ${retired.text} (retired: iteration 2 scored higher without it)`);
    const revise = revisionMessages(seen.revise[0]!, "TASK")[1]!.content as string;
    expect(revise).toContain(`## Lessons from earlier iterations (most binding first)\nHARD: never violate it.`);
    expect(revise).toContain(`1. [HARD] ${hard.text}`);
    expect(revise).toContain(`- ${retired.text} (retired: iteration 2 scored higher without it)`);

    // A resume with the same flag adds nothing twice; one without it keeps them.
    const before = bankLog(b);
    await p2pSearch(root, "hop-b", { carried });
    await p2pSearch(root, "hop-b");
    expect(bankLog(b)).toBe(before);
    await expect(p2pSearch(root, "hop-b", { carried: carried.slice(0, 1) })).rejects.toThrow(/began with 2 other carried lesson/);

    // As `hexa verify` replays B: the carried lessons read from B's own record, A gone, give the same files.
    rmSync(a, { recursive: true });
    const c = await p2pSearch(root, "hop-c", { carried: recordedCarriedEvents(b) });
    expect(bankLog(c)).toBe(before);
    expect(readFileSync(join(c, "plans.jsonl"), "utf8")).toBe(readFileSync(join(b, "plans.jsonl"), "utf8"));
  }, 60_000);

  it("read a bank file as hexa transfer writes one, named by its level, with tiers and history", async () => {
    const shipped = JSON.parse(readFileSync(join(import.meta.dirname, "../../../skills/banks/catapult.heuristic.json"), "utf8"));
    const history = [{ round: 2, from: "STRONG" as const, to: "RETIRED" as const, reason: "the lever never turned", by: "reviser" }];
    const lessons: Lesson[] = [
      { kind: "lesson", id: "l1_1", text: "Drop the ball from high above.", tier: "HARD", generation: 1, parents: [], history: [] },
      { kind: "lesson", id: "l2_1", text: "Place the ball on the pivot.", tier: "RETIRED", generation: 1, parents: [], history },
    ];
    const file = join(tmp(), "bank.json");
    writeFileSync(file, JSON.stringify({ ...shipped, lessons }));
    const events = await readCarriedLessons([file]);
    expect(events.map((e) => e.type === "lesson_added" && [e.entry.id, e.entry.tier, e.entry.history, e.reason])).toEqual([
      ["catapult_l1_1", "HARD", [], "carried from catapult"],
      ["catapult_l2_1", "RETIRED", history, "carried from catapult"],
    ]);
  });

  it("refuses a folder that is not a p2p search, a link, and a damaged bank-events.jsonl line naming file, line and field", async () => {
    const root = tmp();
    const plain = join(root, "plain");
    mkdirSync(plain);
    await expect(readCarriedLessons([plain])).rejects.toThrow(/--lessons-from .*plain: no search\.json; not a search folder/);
    const eureka = join(root, "eureka");
    mkdirSync(eureka);
    writeFileSync(join(eureka, "search.json"), JSON.stringify({ strategy: "eureka", task: "cartpole" }));
    await expect(readCarriedLessons([eureka])).rejects.toThrow(/search\.json's strategy: eureka; lessons are kept by p2p searches only/);

    const a = await searchA(root);
    symlinkSync(a, join(root, "linked"));
    await expect(readCarriedLessons([join(root, "linked")])).rejects.toThrow(/a link \(not followed\)/);
    const damaged = join(root, "damaged");
    cpSync(a, damaged, { recursive: true });
    const lines = bankLog(damaged).split("\n");
    lines[1] = lines[1]!.replace(/"tier":"STRONG"/, '"tier":"MAYBE"');
    writeFileSync(join(damaged, "bank-events.jsonl"), lines.join("\n"));
    await expect(readCarriedLessons([damaged])).rejects.toThrow(/damaged\/bank-events\.jsonl:2: entry\.tier: /);
  }, 60_000);
});
