import { describe, expect, it } from "vitest";
import type { RewardBatchInput } from "../task.ts";
import { checkReward, fmt } from "./reward-check.ts";
import type { RewardLayout } from "./reward-sandbox.ts";
import { rewardLayoutOf } from "./contract.ts";
import { getTask } from "../tasks/index.ts";
import { sampleTransitions } from "../tools/check_reward.ts";

const layout: RewardLayout = { observation: ["x", "theta"], actionNames: ["force"], actionKind: "continuous", info: ["alive"] };

/** `count` batches of 16 envs; obs.x = batch·16 + env (so 0..), theta = x / 100, force = 1, alive = 1. */
const batchesOf = (count: number, n = 16): RewardBatchInput[] =>
  Array.from({ length: count }, (_, k) => {
    const xs = Array.from({ length: n }, (_, i) => k * n + i);
    return {
      n,
      obs: Float64Array.from(xs.flatMap((x) => [x, x / 100])),
      action: new Float64Array(n).fill(1),
      nextObs: Float64Array.from(xs.flatMap((x) => [x + 1, x / 100])),
      info: { alive: new Float64Array(n).fill(1) },
    };
  });

describe("checkReward", () => {
  it("gives per-component min/mean/max over all transitions and the total's range", async () => {
    const c = await checkReward(
      `function reward(obs, action, nextObs, info) {
        const progress = nextObs.x - obs.x, pos = obs.x, effort = -0.5 * action.force * action.force;
        return { total: progress + 0.01 * pos + effort, components: { progress, pos, effort } };
      }`,
      layout,
      batchesOf(16),
    );
    expect(c.ok).toBe(true);
    expect(c.form).toBe("perEnv");
    expect(c.transitions).toBe(256);
    expect(c.batches).toEqual({ given: 16, ran: 16, faulted: 0 });
    expect(c.components.pos).toMatchObject({ min: 0, max: 255, constant: false });
    expect(c.components.pos!.mean).toBeCloseTo(127.5, 10);
    expect(c.components.progress).toMatchObject({ min: 1, mean: 1, max: 1, constant: true });
    expect(c.components.effort).toMatchObject({ min: -0.5, max: -0.5, constant: true });
    expect(c.total!.min).toBeCloseTo(0.5, 10);
    expect(c.total!.max).toBeCloseTo(0.5 + 2.55, 10);
    // pos carries 127.5 / (1 + 127.5 + 0.5) of the magnitude: the alarm fires
    expect(c.components.pos!.share).toBeCloseTo(127.5 / 129, 10);
    expect(c.dominant).toEqual({ component: "pos", share: c.components.pos!.share });
    expect(c.sumGap).toBeGreaterThan(1);
    expect(c.report).toMatch(/ran reward\(obs, action, nextObs, info\) on 256 transitions \(16 of 16 batches\); no faults/);
    expect(c.report).toMatch(
      /component "progress" is the same \(1\) on all 256 transitions: it does not tell one action from another within a step; none of these transitions ended an episode/,
    );
    expect(c.report).toMatch(/component "pos" carries 99% of the summed \|component\| values.*intended when it is the term that tracks F/);
    expect(c.report).not.toMatch(/hack|warning/i);
    expect(c.report).toMatch(/total differs from the sum of components/);
    expect(c.report).toMatch(/pos\s+min 0, mean 127.5, max 255, share 99%/);
  });

  it("balanced, varying components raise no warnings; total = Σ components is not flagged", async () => {
    const c = await checkReward(
      `function reward(obs, action, nextObs) {
        const a = Math.sin(obs.x), b = Math.cos(obs.x);
        return { total: a + b, components: { a, b } };
      }`,
      layout,
      batchesOf(4),
    );
    expect(c.ok).toBe(true);
    expect(c.dominant).toBeNull();
    expect(c.report).not.toMatch(/notes/);
  });

  it("a term named as a survival term never dominates, even where the sample shows no episode ending; another name does", async () => {
    const code = (name: string) =>
      `function reward(obs) { const ${name} = 1, tilt = -0.001 * obs.theta; return { total: ${name} + tilt, components: { ${name}, tilt } }; }`;
    expect((await checkReward(code("alive_bonus"), layout, batchesOf(2))).dominant).toBeNull();
    expect((await checkReward(code("speed"), layout, batchesOf(2))).dominant).toMatchObject({ component: "speed" });
  });

  it("a single component does not dominate; a constant total is noted as acting through episode length when episodes end", async () => {
    const ended = batchesOf(2).map((b, k) => ({ ...b, terminated: Uint8Array.from({ length: b.n }, (_, i) => (k === 1 && i === 3 ? 1 : 0)) }));
    const c = await checkReward(`function reward() { return { total: 1, components: { alive: 1 } }; }`, layout, ended);
    expect(c.dominant).toBeNull();
    expect(c.total).toMatchObject({ min: 1, max: 1, constant: true });
    expect(c.endings).toBe(1);
    expect(c.report).toMatch(
      /total is the same \(1\) on all 32 transitions: .*it still acts through episode length, since episodes end early \(1 of these transitions ended one\): a positive constant rewards living longer/,
    );
  });

  it("collects NaN faults from the batches where they occur and keeps statistics of the others", async () => {
    const c = await checkReward(`function reward(obs) { const l = Math.log(100 - obs.x); return { total: l, components: { l } }; }`, layout, batchesOf(10));
    // x reaches 100 in batch 6 (x = 96..111): log(0) = -Infinity, then NaN
    expect(c.ok).toBe(false);
    expect(c.batches).toEqual({ given: 10, ran: 6, faulted: 4 });
    expect(c.transitions).toBe(96);
    expect(c.faults.length).toBeGreaterThanOrEqual(1);
    expect(c.faults[0]).toMatchObject({ kind: "nan", batch: 6 });
    expect(c.faults.reduce((a, f) => a + f.count, 0)).toBe(4);
    expect(c.faults[0]!.message).toMatch(/component "l" is -Infinity for env 4/);
    expect(c.components.l!.max).toBeCloseTo(Math.log(100), 10);
    expect(c.report).toMatch(/fault in batch 6: reward component "l" is -Infinity/);
  });

  it("stops after a timeout instead of paying the limit on every batch", async () => {
    const c = await checkReward(`function reward(obs) { if (obs.x > 20) for (;;) {} return { total: 0, components: {} }; }`, layout, batchesOf(10), {
      cpuMsPerCall: 20,
    });
    expect(c.faults).toHaveLength(1);
    expect(c.faults[0]).toMatchObject({ kind: "timeout", batch: 1 });
    expect(c.batches).toEqual({ given: 10, ran: 1, faulted: 1 });
  });

  it("a compile fault is the whole report", async () => {
    const c = await checkReward("function reward(obs) {\n  return { total: obs.x +, components: {} };\n}", layout, batchesOf(2));
    expect(c.ok).toBe(false);
    expect(c.form).toBeNull();
    expect(c.faults[0]).toMatchObject({ kind: "syntax", line: 2, batch: -1 });
    expect(c.report).toMatch(/^check_reward: the code did not compile\.\n- reward code does not parse: SyntaxError/);
  });

  it("works on the batched form and on empty component sets", async () => {
    const c = await checkReward(`function rewardBatch(b) { return { total: Array.from(b.obs.x, (x) => 1 - x), components: {} }; }`, layout, batchesOf(2));
    expect(c.form).toBe("batched");
    expect(c.total).toMatchObject({ min: -30, max: 1 });
    expect(c.sumGap).toBeNull();
    expect(c.report).toMatch(/components: none/);
  });

  it("fmt keeps 4 significant digits", () => {
    expect(fmt(1.23456789)).toBe("1.235");
    expect(fmt(127.5)).toBe("127.5");
    expect(fmt(1e-7)).toBe("1e-7");
    expect(fmt(-0.5)).toBe("-0.5");
  });
});

describe("checkReward on a termination-coupled survival term", () => {
  it("names cartpole's hand-written alive term a survival term, not a dominating one, on check_reward's own sample", async () => {
    const task = getTask("cartpole");
    const instance = task.generate(0);
    const c = await checkReward(task.humanReward!, rewardLayoutOf(task, instance), sampleTransitions(task, instance, 320));
    expect(c.endings).toBeGreaterThan(0);
    expect(c.components.alive!.share).toBeGreaterThan(0.9);
    expect(c.components.alive!.survival).toEqual({ living: 1, ending: 0, endings: c.endings });
    expect(c.dominant).toBeNull();
    expect(c.report).toMatch(
      /alive\s+min 0, mean [\d.]+, max 1, share 9\d% \(survival term: 1 while the episode goes on, 0 on the \d+ transitions that ended one\)/,
    );
    expect(c.report).not.toMatch(/hack|dominat|carries/i);
  });
});
