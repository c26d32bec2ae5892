import { describe, expect, it } from "vitest";
import { ContactTracker } from "./contacts.ts";

const touchFor = (beginStep: number) => {
  const c = new ContactTracker();
  for (let s = 1; ; s++) {
    if (s === beginStep) c.onContact("begin", "a", "b");
    c.tick();
    if (c.heldFor("a", "b")) return s - beginStep + 1;
  }
};

describe("ContactTracker", () => {
  it("fires after 180 or 181 touching steps, as float64 += 1/60 does in Interphyre", () => {
    const counts = new Set<number>();
    let at180 = 0;
    for (let begin = 1; begin < 900; begin++) {
      const n = touchFor(begin);
      counts.add(n);
      if (n === 180) at180++;
    }
    expect([...counts].sort()).toEqual([180, 181]);
    expect(at180).toBe(552); // docs/spec/interphyre.md §1.6: 552 of begin steps 1…899 fire at 180
  });

  it("restarts the timer on any fixture-level begin and drops the pair on any end", () => {
    const c = new ContactTracker();
    c.onContact("begin", "ball", "basket");
    for (let i = 0; i < 100; i++) c.tick();
    c.onContact("begin", "basket", "ball");
    expect(c.duration("ball", "basket")).toBe(0);
    c.tick();
    c.onContact("end", "ball", "basket");
    expect(c.inContact("basket", "ball")).toBe(false);
    expect(c.log.map((e) => [e.step, e.event])).toEqual([
      [1, "begin"],
      [101, "begin"],
      [102, "end"],
    ]);
  });
});
