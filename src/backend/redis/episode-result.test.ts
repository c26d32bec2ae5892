import { createAppContext } from "../../app/context.ts";
import { beforeAll, describe, expect, it } from "vitest";
import type { LevelFamily } from "../../family/family.ts";
import type { EpisodeJob } from "../../loop/episode-backend.ts";
import type { UsageLine } from "../../store/run-records.ts";
import type { Trajectory } from "../../store/trajectory.ts";
import { createInstance } from "../../../levels/interphyre/instance.ts";
import { checkPlacement } from "../../../levels/interphyre/world/placement.ts";
import { episodeResultProblem, type EpisodeFacts } from "./episode-result.ts";

/** The shipped families, as hexa has them with no HEXA_FAMILIES. */
const { families } = await createAppContext({});

/**
 * A worker's episode is checked against its job before it is recorded (docs/security.md): anyone who can write to
 * Redis can answer a job, and a result that cannot be true (turns of −1000, a ball of radius −5 or at x = 1e308, a
 * negative cost) once ran a run to "100 %" and wrote a bank that no command could read again.
 */

const LEVEL = "two_body_problem";
const SEED = 3;

let facts: EpisodeFacts;
let placement: { x: number; y: number; radius: number };

/** The first ball of a coarse grid the level's placement rule admits at this seed: an action an episode may commit. */
const admittedBall = () => {
  const inst = createInstance(LEVEL, SEED);
  for (let x = -4; x <= 4; x += 0.5)
    for (let y = -4; y <= 4; y += 0.5) {
      const p = checkPlacement(inst.scene, { x, y, radius: 0.3 }, inst.bounds);
      if (p.ok) return p.action;
    }
  throw new Error("no admitted ball on the grid");
};

beforeAll(async () => {
  await families.load(["interphyre"]);
  const family: LevelFamily = families.get("interphyre");
  facts = { family, maxTurnsOf: () => 6 };
  placement = admittedBall();
});

const job = (over: Partial<EpisodeJob> = {}): EpisodeJob => ({
  id: `stream/${LEVEL}/r1/s${SEED}`,
  phase: "stream",
  level: LEVEL,
  round: 1,
  seed: SEED,
  agent: "hexa",
  bankRound: 0,
  bank: { skills: [], mistakes: [] },
  ...over,
});

const line = (over: Partial<UsageLine> = {}): UsageLine => ({
  schemaVersion: 1,
  phase: "stream",
  level: LEVEL,
  round: 1,
  seed: SEED,
  role: "actor",
  model: "m",
  input: 100,
  output: 20,
  cached: 0,
  costUsd: 0.001,
  priced: true,
  fromCache: false,
  ...over,
});

const step = (turn: number) => ({ turn, thought: "t", tool: "simulate_action", args: {}, observation: "o", ok: true, ms: 3 });

/** An episode that can be true: two turns, a success with an admitted ball, two model calls that sum to its usage. */
const honest = (over: Partial<Trajectory> = {}): { trajectory: Trajectory; retrieved: string[]; usage: UsageLine[] } => ({
  trajectory: {
    schemaVersion: 2,
    level: LEVEL,
    seed: SEED,
    agent: "hexa",
    model: "m",
    success: true,
    turns: 2,
    maxTurns: 6,
    action: placement,
    steps: [step(1), step(2)],
    usage: { input: 200, output: 40, cached: 0, calls: 2, costUsd: 0.002 },
    wallMs: 10,
    stopReason: "success",
    ...over,
  },
  retrieved: [],
  usage: [line(), line()],
});

describe("episodeResultProblem", () => {
  it("takes an episode that can be true", () => {
    expect(episodeResultProblem(job(), honest(), facts)).toBeUndefined();
    const failed = honest({ success: false, turns: 6, stopReason: "budget", action: null });
    expect(episodeResultProblem(job(), failed, facts)).toBeUndefined();
  });

  it.each([
    ["turns −1000", { turns: -1000 }, /trajectory\.turns: -1000, but 2 steps of a success count 2/],
    [
      "a failure counted below its budget",
      { success: false, stopReason: "budget" as const, turns: 2 },
      /trajectory\.turns: 2, but 2 steps of a failure count the whole budget, 6/,
    ],
    ["another turn budget", { maxTurns: 1000, turns: 2 }, /trajectory\.maxTurns: 1000, not the job's turn budget 6/],
    ["more steps than turns", { steps: [1, 2, 3, 4, 5, 6, 7].map(step), turns: 7 }, /trajectory\.steps: 7 steps, more than the turn budget 6/],
    ["steps numbered out of order", { steps: [step(1), step(5)] }, /trajectory\.steps\.1\.turn: 5, not 2/],
    ["a negative time", { wallMs: -5 }, /trajectory\.wallMs: -5 is not a time/],
    ["a success that stopped for its budget", { stopReason: "budget" as const }, /trajectory\.success: true, yet it stopped for budget/],
    ["radius −5", { action: { x: 0, y: 0, radius: -5 } }, /trajectory\.action\.radius: -5 is outside level two_body_problem's range/],
    ["x = 1e308", { action: { x: 1e308, y: 0, radius: 0.3 } }, /trajectory\.action\.x: x=.* is outside/],
    ["an action of another shape", { action: { x: "left", y: 0, radius: 0.3 } }, /trajectory\.action\.x: /],
    ["a negative cost", { usage: { input: 200, output: 40, cached: 0, calls: 2, costUsd: -1 } }, /trajectory\.usage\.costUsd: -1 is below 0/],
    [
      "a cost its calls do not sum to",
      { usage: { input: 200, output: 40, cached: 0, calls: 2, costUsd: 0 } },
      /trajectory\.usage\.costUsd: 0, but the result's model calls sum to 0\.002/,
    ],
    [
      "calls it does not record",
      { usage: { input: 200, output: 40, cached: 0, calls: 9, costUsd: 0.002 } },
      /trajectory\.usage\.calls: 9, but the result records 2 model call\(s\)/,
    ],
  ])("refuses %s, naming the field", (_what, over, message) => {
    expect(episodeResultProblem(job(), honest(over as Partial<Trajectory>), facts)).toMatch(message);
  });

  it("refuses model calls of another episode, and retrieved entries the job's bank does not hold", () => {
    expect(episodeResultProblem(job(), { ...honest(), usage: [line(), line({ seed: 99 })] }, facts)).toMatch(
      /usage\.1: a call of .*"seed":99.*, not of the job's episode/,
    );
    expect(episodeResultProblem(job(), { ...honest(), retrieved: ["S1"] }, facts)).toMatch(/retrieved: "S1" is no entry of the bank the job sent/);
  });

  it("accepts retrieved lessons the job's bank holds (docs/spec/method.md §3.1)", () => {
    const lesson = { kind: "lesson" as const, id: "l1_1", text: "Drop from high.", tier: "HARD" as const, generation: 1, parents: [], history: [] };
    const withLesson = job({ bank: { skills: [], mistakes: [], lessons: [lesson] } });
    expect(episodeResultProblem(withLesson, { ...honest(), retrieved: ["l1_1"] }, facts)).toBeUndefined();
    expect(episodeResultProblem(job(), { ...honest(), retrieved: ["l1_1"] }, facts)).toMatch(/retrieved: "l1_1" is no entry/);
  });

  it("refuses more of the job's budget spent than its allowance", () => {
    const spent = honest({
      steps: [
        { ...step(1), spent: 2 },
        { ...step(2), spent: 2 },
      ],
    });
    expect(episodeResultProblem(job({ allowance: 3 }), spent, facts)).toMatch(/trajectory\.steps: 4 units spent, more than the job's allowance of 3/);
    expect(episodeResultProblem(job({ allowance: 4 }), spent, facts)).toBeUndefined();
  });
});
