import { describe, expect, it } from "vitest";
import { GridBudget, type Weight } from "./grid-budget.ts";

type Spend = { usd: number; tokens: number; calls: number };

/** A grid of `n` jobs whose spend is kept here; a step spends what it likes within its headroom. */
const grid = (n: number, cap: { usd?: number; tokens?: number }) => {
  const keys = Array.from({ length: n }, (_, i) => `j${i}`);
  const spent = new Map<string, Spend>(keys.map((k) => [k, { usd: 0, tokens: 0, calls: 0 }]));
  const budget = new GridBudget(cap, keys, (k) => spent.get(k)!);
  const spend = (k: string, usd: number, tokens: number) => {
    const s = spent.get(k)!;
    spent.set(k, { usd: s.usd + usd, tokens: s.tokens + tokens, calls: s.calls + 1 });
  };
  const total = () => [...spent.values()].reduce((s, x) => ({ usd: s.usd + x.usd, tokens: s.tokens + x.tokens }), { usd: 0, tokens: 0 });
  return { keys, budget, spend, total };
};

const w = (usd: number, tokens: number): Weight => ({ usd, tokens });

describe("GridBudget: one cap shared by a grid's steps", () => {
  it("gives each step its forecast's share of what is left, and what a cheap step leaves goes to the next", () => {
    const { budget, spend } = grid(2, { usd: 10, tokens: 1000 });
    const a = budget.take("j0", w(3, 300), [w(3, 300), w(1, 100)])!;
    expect(a.usd).toBeCloseTo(7.5);
    expect(a.tokens).toBe(750);
    spend("j0", 2, 200);
    budget.release("j0");
    const b = budget.take("j1", w(1, 100), [w(1, 100)])!;
    expect(b.usd).toBeCloseTo(8);
    expect(b.tokens).toBe(800);
  });

  it("holds what a step in flight may still spend, so steps started beside it share only the rest", () => {
    const { budget, spend } = grid(3, { tokens: 900 });
    const a = budget.take("j0", w(0, 1), [w(0, 1), w(0, 1), w(0, 1)])!;
    expect(a.tokens).toBe(300);
    spend("j0", 0, 100); // j0 is still running: it counts at its 300, not its 100
    const b = budget.take("j1", w(0, 1), [w(0, 1), w(0, 1)])!;
    expect(b.tokens).toBe(300);
    const c = budget.take("j2", w(0, 1), [w(0, 1)])!;
    expect(c.tokens).toBe(300);
  });

  it("refuses a step when nothing is left, and counts a step that overshot its headroom at what it spent", () => {
    const { budget, spend } = grid(2, { usd: 1 });
    const a = budget.take("j0", w(1, 0), [w(1, 0), w(1, 0)])!;
    spend("j0", a.usd! + 0.6, 0); // the gate's estimate was short: its files say more than its headroom
    expect(budget.counted().usd).toBeCloseTo(1.1);
    expect(budget.take("j1", w(1, 0), [w(1, 0)])).toBeUndefined();
  });

  it("never lets the steps' spend exceed the cap, whatever the forecasts, the order and the overlap", () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(rand() * 6);
      const cap = { usd: 0.5 + rand() * 5, tokens: 100 + Math.floor(rand() * 5000) };
      const { keys, budget, spend, total } = grid(n, cap);
      const forecast = new Map(keys.map((k) => [k, w(rand() * 3, Math.floor(rand() * 3000))]));
      const waiting = new Set(keys);
      const flight = new Map<string, { usd: number; tokens: number }>();
      while (waiting.size || flight.size) {
        const startOne = waiting.size && (flight.size === 0 || rand() < 0.5);
        if (startOne) {
          const k = [...waiting][Math.floor(rand() * waiting.size)]!;
          const h = budget.take(
            k,
            forecast.get(k)!,
            [...waiting].map((x) => forecast.get(x)!),
          );
          waiting.delete(k);
          if (h) flight.set(k, { usd: h.usd!, tokens: h.tokens! });
          continue;
        }
        const k = [...flight.keys()][Math.floor(rand() * flight.size)]!;
        const h = flight.get(k)!;
        spend(k, h.usd * rand(), Math.floor(h.tokens * rand())); // a step spends any part of its headroom
        budget.release(k);
        flight.delete(k);
      }
      const t = total();
      expect(t.usd).toBeLessThanOrEqual(cap.usd + 1e-9);
      expect(t.tokens).toBeLessThanOrEqual(cap.tokens);
    }
  });
});
