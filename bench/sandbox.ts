/**
 * Reward sandbox speed: µs per batched evaluate call (one crossing into QuickJS) for 1 / 16 / 64 envs with a
 * realistic 4-component reward, in both code forms, and the compile time of one candidate (fresh wasm instance,
 * runtime and context). Run: node --import tsx bench/sandbox.ts
 */
import os from "node:os";
import type { RewardBatchInput } from "../levels/reward-search/task.ts";
import { compileReward, type RewardLayout } from "../levels/reward-search/sandbox/reward-sandbox.ts";
import { median, printTable } from "./harness.ts";
import { recordPage } from "./page.ts";

recordPage("sandbox");

const layout: RewardLayout = {
  observation: ["x", "x_dot", "theta", "theta_dot"],
  actionNames: ["force"],
  actionKind: "continuous",
  info: ["x_position", "alive"],
};

const PER_ENV = `function reward(obs, action, nextObs, info) {
  const upright = Math.cos(nextObs.theta);
  const centre = -0.1 * nextObs.x * nextObs.x;
  const effort = -0.01 * action.force * action.force;
  const progress = nextObs.x - obs.x;
  return { total: upright + centre + effort + 0.5 * progress, components: { upright, centre, effort, progress } };
}`;

const BATCHED = `function rewardBatch(b) {
  const n = b.n, upright = new Float64Array(n), centre = new Float64Array(n), effort = new Float64Array(n), progress = new Float64Array(n), total = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    upright[i] = Math.cos(b.nextObs.theta[i]);
    centre[i] = -0.1 * b.nextObs.x[i] * b.nextObs.x[i];
    effort[i] = -0.01 * b.action.force[i] * b.action.force[i];
    progress[i] = b.nextObs.x[i] - b.obs.x[i];
    total[i] = upright[i] + centre[i] + effort[i] + 0.5 * progress[i];
  }
  return { total, components: { upright, centre, effort, progress } };
}`;

const batchOf = (n: number): RewardBatchInput => {
  const r = (i: number) => Math.sin(i * 12.9898) * 0.5;
  return {
    n,
    obs: Float64Array.from({ length: n * 4 }, (_, i) => r(i)),
    action: Float64Array.from({ length: n }, (_, i) => r(i + 7)),
    nextObs: Float64Array.from({ length: n * 4 }, (_, i) => r(i + 3)),
    info: { x_position: Float64Array.from({ length: n }, (_, i) => r(i + 1)), alive: new Float64Array(n).fill(1) },
  };
};

async function main() {
  const compileMs: number[] = [];
  const compileCpuMs: number[] = [];
  for (let k = 0; k < 10; k++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const p = await compileReward(PER_ENV, layout);
    const c = process.cpuUsage(c0);
    compileMs.push(performance.now() - t0);
    compileCpuMs.push((c.user + c.system) / 1000);
    p.dispose();
  }
  const rows: string[][] = [];
  for (const [form, code] of [
    ["reward (per env)", PER_ENV],
    ["rewardBatch", BATCHED],
  ] as const) {
    const p = await compileReward(code, layout);
    for (const n of [1, 16, 64]) {
      const b = batchOf(n);
      for (let i = 0; i < 200; i++) p.evaluate(b);
      const wall: number[] = [];
      const cpu: number[] = [];
      for (let rep = 0; rep < 25; rep++) {
        const calls = 200;
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        for (let i = 0; i < calls; i++) p.evaluate(b);
        const c = process.cpuUsage(c0);
        wall.push(((performance.now() - t0) * 1000) / calls);
        cpu.push((c.user + c.system) / calls);
      }
      const us = median(wall);
      rows.push([form, String(n), us.toFixed(1), median(cpu).toFixed(1), Math.min(...cpu).toFixed(1), (us / n).toFixed(2)]);
    }
    p.dispose();
  }
  printTable(["form", "envs", "µs/call wall", "µs/call cpu", "cpu best of 25", "µs/env wall"], rows);
  console.log(
    `\nload average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")} on ${os.availableParallelism()} cores (figures scale with the load)`,
  );
  console.log(
    `compile (fresh wasm instance + runtime + context + prelude + code): wall median ${median(compileMs).toFixed(1)} ms (first ${compileMs[0]!.toFixed(1)} ms), ` +
      `cpu median ${median(compileCpuMs).toFixed(1)} ms, best ${Math.min(...compileCpuMs).toFixed(1)} ms`,
  );
}

await main();
