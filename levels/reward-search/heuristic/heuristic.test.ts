import { beforeAll, describe, expect, it } from "vitest";
import { labelTrajectories } from "../../../agents/evolver-labels.ts";
import { checkReward } from "../sandbox/reward-check.ts";
import { createRng } from "../../../src/util/rng.ts";
import { applyEvent, EMPTY_BANK } from "../../../src/store/bank.ts";
import { NO_USAGE, type Trajectory } from "../../../src/store/trajectory.ts";
import { sampleTransitions } from "../tools/check_reward.ts";
import { getTask, listTasks, loadTask } from "../tasks/index.ts";
import { mutate } from "./designer.ts";
import { designHintsFromBank, designOf, evolveRewardHeuristic } from "./evolver.ts";
import { baseDesign, baseOf, composeReward, composeTerms, termsOf } from "./terms.ts";
import { libraryTerms } from "./term-library.ts";

// MuJoCo tasks load their wasm module and model before their envs reset (task.prepare).
beforeAll(async () => {
  for (const id of listTasks()) await loadTask(id);
}, 120_000);

describe.each(listTasks())("the heuristic term library of %s", (id) => {
  it("composes code whose every term runs in the sandbox on sampled transitions, each a component", async () => {
    const task = getTask(id);
    const instance = task.generate(3);
    const all = Object.fromEntries(termsOf(id).map((t) => [t.name, t.weight]));
    expect(Object.keys(all).length).toBeGreaterThanOrEqual(3);
    const layout = { observation: task.observation, actionNames: task.actionNames, actionKind: task.makeEnv(instance, 1).action.kind, info: task.info };
    const check = await checkReward(composeReward(id, all), layout, sampleTransitions(task, instance, 160));
    expect(check.faults, check.report).toEqual([]);
    expect(Object.keys(check.components).sort()).toEqual(Object.keys(all).sort());
    expect(Object.keys(baseDesign(id)).length).toBeGreaterThan(0);
  });

  it("the generic library's terms for it (the heuristic proposer's) run in the sandbox too, each a component", async () => {
    const task = getTask(id);
    const instance = task.generate(3);
    const terms = libraryTerms(task);
    const all = Object.fromEntries(terms.map((t) => [t.name, t.weight]));
    expect(Object.keys(baseOf(terms)).length).toBeGreaterThan(0);
    const layout = { observation: task.observation, actionNames: task.actionNames, actionKind: task.makeEnv(instance, 1).action.kind, info: task.info };
    const check = await checkReward(composeTerms(id, terms, all), layout, sampleTransitions(task, instance, 160));
    expect(check.faults, check.report).toEqual([]);
    expect(Object.keys(check.components).sort()).toEqual(Object.keys(all).sort());
  });
});

const traj = (seed: number, success: boolean, design: Record<string, number>, score: number): Trajectory => ({
  schemaVersion: 2,
  level: "cartpole",
  seed,
  agent: "heuristic (no LLM)",
  model: "none (heuristic)",
  success,
  turns: success ? 3 : 6,
  maxTurns: 6,
  action: { code: composeReward("cartpole", design), design },
  score,
  steps: Array.from({ length: success ? 3 : 6 }, (_, i) => ({ turn: i + 1, thought: "", tool: "train_policy", args: {}, observation: "", ok: true, ms: 0 })),
  usage: NO_USAGE,
  wallMs: 0,
  stopReason: "finish",
});

describe("the reward-search heuristic evolver", () => {
  it("turns solving designs into skills (same term set merged, weights averaged) and failed ones into mistakes; hints read them back", () => {
    const a = { alive: 1, upright: 0.4 };
    const b = { alive: 2, upright: 0.8 };
    const bad = { alive: 1, centre: 2 };
    const labelled = labelTrajectories([traj(1, true, a, 480), traj(2, true, b, 490), traj(3, false, bad, 40)], ["t1", "t2", "t3"]);
    const events = evolveRewardHeuristic({ round: 0, level: "cartpole", bank: EMPTY_BANK, labelled });
    const bank = events.reduce(applyEvent, EMPTY_BANK);
    expect(bank.skills).toHaveLength(1);
    expect(designOf(bank.skills[0]!)).toEqual({ alive: 1.5, upright: 0.6 });
    expect(bank.skills[0]!.sourceSeeds).toEqual([1, 2]);
    expect(bank.mistakes.map(designOf)).toEqual([bad]);
    expect(`${bank.skills[0]!.principle} ${bank.skills[0]!.example}`).not.toMatch(/[{}]/);
    const hints = designHintsFromBank(bank);
    expect(hints).toEqual([
      { kind: "start", design: { alive: 1.5, upright: 0.6 }, weight: bank.skills[0]!.weight },
      { kind: "avoid", design: bad, weight: bank.mistakes[0]!.weight },
    ]);
    // Re-observing the skill's term set revises it in place with the evidence-weighted mean.
    const next = evolveRewardHeuristic({
      round: 1,
      level: "cartpole",
      bank,
      labelled: labelTrajectories([traj(4, true, { alive: 1.5, upright: 0.9 }, 500)], ["t4"]),
    });
    expect(next.map((e) => e.type)).toEqual(["revise"]);
    const revised = next.reduce(applyEvent, bank).skills[0]!;
    expect(designOf(revised)).toEqual({ alive: 1.5, upright: Number(((0.6 * 2 + 0.9) / 3).toPrecision(4)) });
  });

  it("mutates within each term's range, deterministically per seed", () => {
    const d = baseDesign("pendulum");
    const run = (seed: number) => {
      const rng = createRng(seed);
      return Array.from({ length: 30 }, () => mutate("pendulum", d, rng).design);
    };
    expect(run(5)).toEqual(run(5));
    expect(run(5)).not.toEqual(run(6));
    for (const m of run(5)) {
      for (const [k, w] of Object.entries(m)) {
        const t = termsOf("pendulum").find((x) => x.name === k)!;
        expect(w).toBeGreaterThanOrEqual(t.range[0]);
        expect(w).toBeLessThanOrEqual(t.range[1]);
      }
    }
  });
});
