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
import type { BaseMessage } from "@langchain/core/messages";
import { toRecordMessages } from "../../../src/llm/agent-messages.ts";
import type { Lesson } from "../../../src/store/lesson.ts";
import { alignMessages, proposalMessages, repairMessages, selfEvaluationMessages, taskText } from "./proposer-prompts.ts";

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

const TASK = taskText(task, instance, "discrete");
const asText = (messages: BaseMessage[]) =>
  `${toRecordMessages(messages)
    .map((m) => `=== ${m.role} ===\n${m.content}`)
    .join("\n")}\n`;
const propose = (op: (typeof OPERATORS)[number], ctx = contextFor()) => proposalMessages(op, ctx, TASK);
const lastUser = (messages: BaseMessage[]) => String(messages.at(-1)!.content);

describe("the reward-search proposer's prompts", () => {
  it("render every operator, the re-debug, the self-evaluation and the thought alignment as their golden files", () => {
    for (const op of OPERATORS)
      expectGolden(`reward-search-${op}.txt`, asText(propose(op, op === "initial" ? { ...contextFor(), parent: undefined } : contextFor())));
    expectGolden(
      "reward-search-repair.txt",
      asText(repairMessages({ thought: "Alive bonus.", code: "function reward(obs {", error: "check_reward: the code did not compile." }, TASK)),
    );
    expectGolden("reward-search-self-evaluation.txt", asText(selfEvaluationMessages(node(5, 212), TASK)));
    expectGolden("reward-search-thought-alignment.txt", asText(alignMessages(node(5, 212).code, node(5, 212).thought, TASK)));
  });

  it("say a discrete action reaches the code as its index, never as named fields", () => {
    const text = taskText(task, instance, "discrete");
    expect(text).toContain("action is the index of the chosen action, a number (0 = push_left, 1 = push_right)");
    expect(text).not.toMatch(/action has push_left/);
  });

  it("show path reasoning's nodes oldest first, the node being expanded last", () => {
    const text = lastUser(propose("path"));
    expect(text.indexOf("Design 0:")).toBeLessThan(text.indexOf("Design 2:"));
    expect(text.indexOf("Design 2:")).toBeLessThan(text.indexOf("Design 5:"));
    expect(text).toContain("No.3 reward function (the newest):\nDesign Idea: Design 5:");
  });

  it("show crossover's and different thought's group as rfagent_algo.py builds it: the other nodes, the parent last", () => {
    const crossover = lastUser(propose("crossover"));
    expect(crossover).toContain("I have 3 existing reward functions with their design ideas and codes as follows.");
    expect(crossover.indexOf("Design 3:")).toBeLessThan(crossover.indexOf("Design 8:"));
    expect(crossover.indexOf("Design 8:")).toBeLessThan(crossover.indexOf("Design 5:"));
    const different = lastUser(propose("different"));
    expect(different).toContain("No.1 reward function:\nDesign Idea: Design 7:");
    expect(different).toContain("No.2 reward function:\nDesign Idea: Design 5:");
  });

  it("send Eureka's refinement as eureka.py does: the initial request, the best reward as the model's answer, then the feedback", () => {
    const messages = propose("refine");
    expect(toRecordMessages(messages).map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(messages[1]!.content).toBe(propose("initial")[1]!.content);
    expect(JSON.parse(String(messages[2]!.content))).toEqual({ thought: node(5, 212).thought, code: node(5, 212).code });
    const feedback = String(messages[3]!.content);
    expect(feedback).toMatch(/^We trained a RL policy using the provided reward function code/);
    expect(feedback).toContain("(1) If F is always near the bottom of its range [0, 500], then you must rewrite the entire reward function");
    expect(feedback).toContain("Please analyze each existing reward component in the suggested manner above first, and then write the reward function code.");
    expect(feedback).toContain("Do not combine contradictory terms"); // code_output_tip.txt after every feedback
  });

  it("use RF-Agent's published wording: the one-sentence design idea, the parameter mutation, the alignment hints, the verify system prompt", () => {
    for (const op of OPERATORS.filter((o) => o !== "refine"))
      expect(lastUser(propose(op))).toContain("First, describe the design idea and main steps of your reward function in one sentence.");
    expect(lastUser(propose("parameter"))).toContain(
      "Please identify the reward function parameters and create a new reward function that has a different parameter settings compared to the provided version.",
    );
    expect(lastUser(propose("parameter"))).not.toContain("keeping its components");
    const align = alignMessages("code", "idea", TASK);
    expect(lastUser(align)).toContain("Hint: You should reference the given Design Idea and highlight the most critical design ideas of the code.");
    const verify = selfEvaluationMessages(node(5, 212), TASK);
    expect(verify[0]!.content).toMatch(/^You are a reward engineer trying to evaluate reward functions/);
    expect(propose("structural")[0]!.content).toMatch(/^You are a reward engineer trying to write reward functions/);
  });

  it("carry the code tips in every designer's system prompt, as both sources do", () => {
    for (const op of OPERATORS) expect(propose(op)[0]!.content).toMatch(/add a bonus for reaching it[\s\S]*Do not combine contradictory terms/);
    expect(repairMessages({ thought: "t", code: "c", error: "e" }, TASK)[0]!.content).toContain("Tips for writing the reward code:");
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

describe("lessons in the proposer's prompts (docs/spec/method.md §3.1)", () => {
  const lesson = (id: string, text: string, tier: Lesson["tier"], history: Lesson["history"] = []): Lesson => ({
    kind: "lesson",
    id,
    text,
    tier,
    generation: 1,
    parents: [],
    history,
  });
  const lessons: Lesson[] = [
    lesson("l1_1", "A height term without a landing term makes the policy dive.", "SOFT"),
    lesson("l1_2", "Never reward the torso angle without bounding it.", "HARD"),
    lesson("l2_1", "Keep the alive bonus below the task terms.", "STRONG"),
    lesson("l1_3", "Reward the pole's velocity.", "RETIRED", [
      { round: 3, from: "STRONG", to: "RETIRED", reason: "it made the cart oscillate", by: "reviser" },
    ]),
  ];

  it("follow the task, most binding first, SOFT marked challengeable and the retired under do-not-repeat with their reason (golden)", () => {
    const messages = propose("refine", { ...contextFor(), lessons });
    expectGolden("reward-search-refine-lessons.txt", asText(messages));
    const first = String(messages[1]!.content);
    expect(first.indexOf("[HARD]")).toBeLessThan(first.indexOf("[STRONG]"));
    expect(first).toContain("3. [SOFT, challengeable] A height term");
    expect(first).toContain("## Retired lessons: do not repeat these mistakes\n- Reward the pole's velocity. (retired: it made the cart oscillate)");
  });

  it("leave every operator's prompt byte-identical when there are none", () => {
    for (const op of OPERATORS) expect(asText(propose(op, { ...contextFor(), lessons: [] }))).toBe(asText(propose(op)));
  });
});
