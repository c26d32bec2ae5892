import { describe, expect, it } from "vitest";
import { OPERATORS, type CandidateView } from "../../../src/search/proposer.ts";
import { createRng } from "../../../src/util/rng.ts";
import { expectGolden } from "../../../test/support/golden.ts";
import { checkReward } from "../sandbox/reward-check.ts";
import { rewardLayoutOf } from "../sandbox/contract.ts";
import { rewardSearchPrompt } from "../prompt.ts";
import type { RewardProposeContext } from "../search/evaluator.ts";
import { getTask } from "../tasks/index.ts";
import { sampleTransitions } from "../tools/check_reward.ts";
import { alignPrompt, operatorPrompt, repairPrompt, selfEvaluationPrompt, SYSTEM, taskText } from "./proposer-prompts.ts";

const task = getTask("cartpole");
const instance = task.generate(2);

const FEEDBACK = [
  "F of the final policy: 212 (evaluation seeds 11: 200, 12: 224, 13: 212, not the training seed); solved at ≥ 475.",
  "Best checkpoint during training (not the score): F 260 at step 60000.",
  "F over training: 22 → 95 → 180 → 212.",
  "Episode length over training: 22 → 95 → 180 → 212.",
  "Reward components over training (mean [min, max] per sample):",
  "- alive: 0.95 [0, 1]; 0.99 [0, 1]; 1 [0, 1]",
  "- upright: -0.2 [-0.9, 0]; -0.1 [-0.5, 0]; -0.05 [-0.3, 0]",
].join("\n");

const node = (index: number, fitness: number | null): CandidateView => ({
  index,
  thought: `Design ${index}: an alive bonus and an upright penalty scaled by ${index}.`,
  code: `function reward(obs, action, nextObs, info) {\n  const alive = info.fell ? 0 : 1;\n  const upright = -${index} * Math.abs(nextObs.theta);\n  return { total: alive + upright, components: { alive, upright } };\n}`,
  fitness,
  feedback: fitness === null ? "ERROR: the training failed (timeout): the trainer stopped" : FEEDBACK,
});

/** Each operator's context as the strategies build it: RF-Agent's ancestors nearest first, elites with the parent first. */
const contextFor = (): RewardProposeContext => ({
  task,
  instance,
  seen: new Set(),
  rng: createRng(1),
  parent: node(5, 212),
  elites: [node(5, 212), node(3, 180), node(8, 140)],
  ancestors: [node(5, 212), node(2, 95), node(0, 22)],
  others: [node(7, 60)],
  feedback: FEEDBACK,
});

const user = (body: string) => `=== system ===\n${SYSTEM}\n=== user ===\n${taskText(task, instance, "discrete")}\n\n${body}\n`;

describe("the reward-search proposer's prompts", () => {
  it("render every operator, the re-debug, the self-evaluation and the thought alignment as their golden files", () => {
    for (const op of OPERATORS)
      expectGolden(`reward-search-${op}.txt`, user(operatorPrompt(op, op === "initial" ? { ...contextFor(), parent: undefined } : contextFor())));
    expectGolden(
      "reward-search-repair.txt",
      user(repairPrompt({ thought: "Alive bonus.", code: "function reward(obs {", error: "check_reward: the code did not compile." })),
    );
    expectGolden("reward-search-self-evaluation.txt", user(selfEvaluationPrompt(node(5, 212))));
    expectGolden("reward-search-thought-alignment.txt", user(alignPrompt(node(5, 212).code, node(5, 212).thought)));
  });

  it("say a discrete action reaches the code as its index, never as named fields", () => {
    const text = taskText(task, instance, "discrete");
    expect(text).toContain("action is the index of the chosen action, a number (0 = push_left, 1 = push_right)");
    expect(text).not.toMatch(/action has push_left/);
  });

  it("show path reasoning's nodes oldest first, the node being expanded last", () => {
    const text = operatorPrompt("path", contextFor());
    expect(text.indexOf("#0,")).toBeLessThan(text.indexOf("#2,"));
    expect(text.indexOf("#2,")).toBeLessThan(text.indexOf("#5,"));
    expect(text).toContain("### Step 3, the newest (#5");
  });

  it("carry Eureka's and RF-Agent's tips where their sources put them", () => {
    const refine = operatorPrompt("refine", contextFor());
    expect(refine).toMatch(/rewrite the whole reward function/);
    expect(refine).toMatch(/Analyse each existing component this way first/);
    expect(operatorPrompt("crossover", contextFor())).toMatch(
      /List the ideas the high-scoring ones have in common, then combine the high-performing components/,
    );
    for (const op of OPERATORS) expect(operatorPrompt(op, contextFor())).toMatch(/add a bonus for reaching it[\s\S]*Do not combine contradictory terms/);
  });
});

describe("check_reward's report and the actor's task text", () => {
  it("render cartpole's hand-written reward check and the task's rules, with and without a share of the run's trainings", async () => {
    const check = await checkReward(task.humanReward!, rewardLayoutOf(task, instance), sampleTransitions(task, instance, 320));
    expectGolden("reward-search-check-reward.txt", `${check.report}\n`);
    const render = (maxTrainings?: number) => {
      const p = rewardSearchPrompt(task, instance, { train: 75_000, finish: 300_000 }, 4, "discrete", maxTrainings);
      return [...p.sections, "", "## Rules", ...p.rules, "", p.task, ""].join("\n");
    };
    expectGolden("reward-search-actor-task.txt", render());
    expectGolden("reward-search-actor-task-share.txt", render(3));
  });

  it("under a share say that every training is the quick one, that auto-finish cannot fire, and never to spend them all", () => {
    const rules = rewardSearchPrompt(task, instance, { train: 75_000, finish: 300_000 }, 4, "discrete", 3).rules.join("\n");
    expect(rules).toContain("each one, train_policy and finish alike, trains 75,000 env steps");
    expect(rules).toContain("does not end the episode: commit its code with finish");
    expect(rules).not.toMatch(/spend them all|full budget/);
    const equal = rewardSearchPrompt(task, instance, { train: 300_000, finish: 300_000 }, 4, "discrete", 3).rules.join("\n");
    expect(equal).toContain("If your last training (training 3 of 3) is a train_policy run that reaches F ≥ 475");
  });
});
