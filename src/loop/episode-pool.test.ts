import { describe, expect, it } from "vitest";
import { EpisodePool, nextSlot, type PoolSlot } from "./episode-pool.ts";

/** The shared episode pool (docs/ARCHITECTURE.md §4): longest expected first, ties in the run's order. */

const LEVELS = ["catapult", "pass_the_parcel", "two_body_problem"];

describe("nextSlot", () => {
  it("picks the level with the longest expected episode, whatever the order they wait in", () => {
    const expected = new Map([
      ["catapult", 120],
      ["pass_the_parcel", 480],
      ["two_body_problem", 60],
    ]);
    const waiting: PoolSlot[] = [
      { level: "catapult", round: 2, index: 0 },
      { level: "two_body_problem", round: 1, index: 0 },
      { level: "pass_the_parcel", round: 3, index: 1 },
      { level: "pass_the_parcel", round: 3, index: 0 },
    ];
    expect(waiting[nextSlot(waiting, (l) => expected.get(l)!, LEVELS)]).toEqual({ level: "pass_the_parcel", round: 3, index: 0 });
  });

  it("breaks ties by the level's place in the config, then round, then place in the round", () => {
    const same = () => 100;
    const a: PoolSlot[] = [
      { level: "two_body_problem", round: 1, index: 0 },
      { level: "pass_the_parcel", round: 2, index: 1 },
      { level: "pass_the_parcel", round: 2, index: 0 },
      { level: "pass_the_parcel", round: 1, index: 2 },
    ];
    expect(a[nextSlot(a, same, LEVELS)]).toEqual({ level: "pass_the_parcel", round: 1, index: 2 });
    const b = a.filter((s) => s.round === 2);
    expect(b[nextSlot(b, same, LEVELS)]).toEqual({ level: "pass_the_parcel", round: 2, index: 0 });
  });
});

describe("EpisodePool", () => {
  it("starts queued episodes longest-expected-first and never runs more than its limit", async () => {
    const expected = new Map([
      ["catapult", 10],
      ["pass_the_parcel", 50],
    ]);
    const pool = new EpisodePool(2, (l) => expected.get(l) ?? 0, LEVELS);
    const started: string[] = [];
    let running = 0;
    let most = 0;
    const gates: (() => void)[] = [];
    const work = (name: string) => () => {
      started.push(name);
      most = Math.max(most, ++running);
      return new Promise<void>((resolve) =>
        gates.push(() => {
          running--;
          resolve();
        }),
      );
    };
    const slot = (level: string, index: number): PoolSlot => ({ level, round: 1, index });
    const all = [
      pool.run(slot("catapult", 0), work("c0")),
      pool.run(slot("catapult", 1), work("c1")),
      pool.run(slot("catapult", 2), work("c2")),
      pool.run(slot("pass_the_parcel", 0), work("p0")),
      pool.run(slot("pass_the_parcel", 1), work("p1")),
    ];
    // Queued together: the two places go to pass_the_parcel, whose episodes are expected to take longest.
    while (started.length < 2) await new Promise((r) => setImmediate(r));
    expect(started).toEqual(["p0", "p1"]);
    while (started.length < 5) {
      gates.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    gates.splice(0).forEach((g) => g());
    await Promise.all(all);
    await pool.idle();
    expect(started).toEqual(["p0", "p1", "c0", "c1", "c2"]);
    expect(most).toBe(2);
  });

  it("passes a failure to its caller and keeps serving the rest", async () => {
    const pool = new EpisodePool(1, () => 0, LEVELS);
    const failed = pool.run({ level: "catapult", round: 1, index: 0 }, () => Promise.reject(new Error("endpoint down")));
    const next = pool.run({ level: "catapult", round: 1, index: 1 }, () => Promise.resolve("played"));
    await expect(failed).rejects.toThrow("endpoint down");
    await expect(next).resolves.toBe("played");
  });
});
