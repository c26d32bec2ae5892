import { describe, expect, it } from "vitest";
import { MAX_ROUNDS_AHEAD, RunAhead } from "./run-ahead.ts";

/** How far a level may run ahead of the slowest (docs/ARCHITECTURE.md §4). */

const settled = async (p: Promise<void>) => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
};

describe("RunAhead", () => {
  it(`lets a level start round r once every level has finished round r − 1 − ${MAX_ROUNDS_AHEAD}, and no sooner`, async () => {
    const ahead = new RunAhead(["fast", "slow"]);
    ahead.finish("slow", 0);
    for (let r = 0; r <= 1 + MAX_ROUNDS_AHEAD; r++) ahead.finish("fast", r);
    const next = 2 + MAX_ROUNDS_AHEAD;
    expect(await settled(ahead.until(next - 1, () => false))).toBe(true);
    const held = ahead.until(next, () => false);
    expect(await settled(held)).toBe(false);
    ahead.finish("slow", 1);
    expect(await settled(held)).toBe(true);
  });

  it("lets every waiting level go once the run stops", async () => {
    const ahead = new RunAhead(["fast", "slow"]);
    let stopping = false;
    const held = ahead.until(10, () => stopping);
    expect(await settled(held)).toBe(false);
    stopping = true;
    ahead.wake();
    expect(await settled(held)).toBe(true);
  });
});
