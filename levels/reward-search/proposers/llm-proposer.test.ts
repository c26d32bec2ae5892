import { afterEach, describe, expect, it } from "vitest";
import type { ScriptItem } from "../../../test/support/fake-openai-server.ts";
import { scriptedRole } from "../../../test/support/scripted-role.ts";
import { getTask } from "../tasks/index.ts";
import { memoryLog, type CandidateRecord } from "../../../src/search/candidates.ts";
import { RfAgentConfig } from "../../../src/search/config.ts";
import { runEureka } from "../../../src/search/eureka.ts";
import { runRfAgent } from "../../../src/search/rf-agent.ts";
import { llmProposer, NO_REWARD_CODE } from "./llm-proposer.ts";
import { proposalMessages } from "./proposer-prompts.ts";
import { rewardCodeCheck } from "../search/code-check.ts";
import { createRng } from "../../../src/util/rng.ts";
import { trainerEvaluator } from "../search/evaluator.ts";
import { testTrainer } from "../search/test-trainer.ts";
import { countBy } from "../../../src/util/stats.ts";

/** The strategies with the LLM proposer, through the real client against the local OpenAI-compatible server. */
const fake = scriptedRole("actor", 3000);
afterEach(() => fake.close());
const modelFor = fake.modelFor;

const code = (k: number) =>
  `function reward(obs, action, nextObs, info) {\n  const alive = ${k};\n  const upright = -Math.abs(nextObs.theta);\n  return { total: alive + upright, components: { alive, upright } };\n}`;
const BROKEN = "function reward(obs, action { return 1 }";
const answer = (thought: string, c: string): ScriptItem => ({ text: JSON.stringify({ thought, code: c }) });
const PLAN = "The expert pushes the cart under the pole and keeps it upright near the centre.";
const score = (s: unknown): ScriptItem => ({ text: JSON.stringify({ expert_plan: PLAN, score: s }) });

const task = getTask("cartpole");
const instance = task.generate(2);
const userText = (i: number) => String(fake.requests[i]!.body.messages.at(-1)!.content);
const byIndex = (rs: readonly CandidateRecord[]) => [...rs].sort((a, b) => a.index - b.index);

describe("LLM proposer", () => {
  it("eureka: broken code and an unusable answer each cost a training whose error is the feedback; the best's reflection is fed back", async () => {
    const model = await modelFor([
      answer("Keep the pole up and reward being alive.", code(1)),
      answer("A broken one.", BROKEN),
      { text: "I would rather chat about the weather." },
      { text: "Still no JSON, sorry." },
      answer("Alive bonus with a stronger upright term.", code(2)),
    ]);
    const t = testTrainer();
    const log = memoryLog();
    const r = await runEureka(
      { task, instance, seed: 1, proposer: llmProposer(model), budget: 4, ports: { evaluator: trainerEvaluator(t, 1000), log } },
      { samples: 2 },
    );
    expect(t.jobs).toHaveLength(4);
    expect(log.records).toHaveLength(4);
    const cs = byIndex(r.candidates);
    expect(cs[0]!.outcome.kind).toBe("result");
    expect(cs[1]!.outcome.kind).toBe("error");
    expect(cs[1]!.feedback).toMatch(/^ERROR in your reward code \(syntax/);
    expect(cs[2]!.code).toBe(NO_REWARD_CODE);
    expect(cs[2]!.note).toMatch(/refine proposal was unusable: structured output failed after 2 attempt/);
    expect(cs[2]!.outcome.kind).toBe("error");
    expect(cs[2]!.feedback).toMatch(/defines no function reward/);
    expect(cs[3]!.outcome.kind).toBe("result");
    // design idea first, then code; the second iteration sees the kept best (#0) as its own answer, then its reflection only
    expect(userText(0)).toContain('{"thought": "<the design idea>", "code": "<the reward function>"}');
    const refine = fake.requests[2]!.body.messages;
    expect(refine.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(String(refine[2]!.content)).toContain(JSON.stringify(code(1)));
    expect(userText(2)).toContain("F of the final policy");
    expect(JSON.stringify(refine)).not.toContain(JSON.stringify(BROKEN));
    expect(cs[3]!.parent).toBe(0);
  });

  it("rf-agent: the self-evaluation reads the node's code, garbage falls back to 0, thoughts are aligned (≤ 4 sentences)", async () => {
    const aligned: ScriptItem = { text: JSON.stringify({ thought: "Aligned one. Two. Three. Four. Five is too many." }) };
    const model = await modelFor([
      answer("First: alive bonus.", code(1)),
      score(0.6),
      answer("Second: alive bonus, more upright.", code(3)),
      { text: "Looks great to me!" },
      { text: "Really great." },
      aligned,
      aligned,
      answer("Structural: broken.", BROKEN),
      score(-0.2),
      answer("Parameter: reweighted.", code(7)),
      score(2),
      score("high"),
      aligned,
    ]);
    const t = testTrainer();
    // Every call goes to the model of the candidate it is for (hexa run meters them into usage.jsonl so).
    const calls: Array<number | undefined> = [];
    const proposer = llmProposer(model, { modelFor: (c) => model.listening(() => calls.push(c)) });
    const r = await runRfAgent(
      { task, instance, seed: 1, proposer, budget: 4, ports: { evaluator: trainerEvaluator(t, 1000), log: memoryLog() } },
      RfAgentConfig.parse({ initial: 2, children: 2 }),
    );
    expect(t.jobs).toHaveLength(4);
    expect(fake.requests).toHaveLength(13);
    // proposal + self-evaluation (+ its retry) + alignment after a successful training; none for the failed #2
    const perCandidate = Object.fromEntries(countBy(calls.map(String)));
    expect(perCandidate).toEqual({ 0: 3, 1: 4, 2: 2, 3: 4 });
    const cs = byIndex(r.candidates);
    // the self-evaluation prompts carry the code of the node they score
    expect(userText(1)).toContain(code(1));
    expect(userText(3)).toContain(code(3));
    expect(cs[0]!.vSelf).toBe(0.6);
    expect(cs[0]!.vSelfNote).toBeUndefined();
    expect(cs[1]!.vSelf).toBe(0);
    expect(cs[1]!.vSelfNote).toMatch(/self-evaluation unusable .*v_self = 0 \(neutral\)/);
    expect(cs[0]!.thought).toBe("Aligned one. Two. Three. Four.");
    expect(cs[0]!.draftThought).toBe("First: alive bonus.");
    expect(cs.slice(2).map((c) => c.operator)).toEqual(["structural", "parameter"]);
    expect(userText(7)).toContain("has a different form but can be a modified version of the provided reward function");
    expect(userText(7)).toContain(code(cs[2]!.parent === 0 ? 1 : 3));
    expect(cs[2]!.outcome.kind).toBe("error");
    expect(cs[2]!.thought).toBe("Structural: broken."); // no alignment after a failed training
    expect(cs[2]!.vSelf).toBe(-0.2);
    expect(cs[3]!.vSelf).toBe(0);
    expect(cs[3]!.vSelfNote).toMatch(/unusable/);
    expect(userText(8)).toContain(BROKEN);
    for (const j of t.jobs) expect(j.evalSeeds).not.toContain(j.seed);
  });

  it("rf-agent re-debug: scripted broken code goes back to the model with the check's error; the fix is trained once, the calls are the candidate's", async () => {
    const aligned: ScriptItem = { text: JSON.stringify({ thought: "Aligned." }) };
    const model = await modelFor([
      answer("First: alive bonus.", BROKEN),
      answer("Fixed: alive bonus.", code(1)),
      score(0.5),
      aligned,
      answer("Structural: more upright.", code(3)),
      score(0.1),
      answer("Parameter: reweighted.", code(4)),
      score(0.2),
      aligned,
      aligned,
    ]);
    const t = testTrainer();
    const calls: Array<number | undefined> = [];
    const proposer = llmProposer(model, { modelFor: (c) => model.listening(() => calls.push(c)) });
    const r = await runRfAgent(
      { task, instance, seed: 1, proposer, budget: 3, ports: { evaluator: trainerEvaluator(t, 1000), log: memoryLog(), check: rewardCodeCheck(32) } },
      RfAgentConfig.parse({ initial: 1, children: 2, debugTries: 2 }),
    );
    // the training budget: one training per candidate, none for the refused code
    expect(t.jobs).toHaveLength(3);
    expect(t.jobs.map((j) => j.reward)).not.toContain(BROKEN);
    // the LLM budget: the fix is one more call of candidate 0
    expect(fake.requests).toHaveLength(10);
    expect(Object.fromEntries(countBy(calls.map(String)))).toEqual({ 0: 4, 1: 3, 2: 3 });
    const fix = userText(1);
    expect(fix).toContain("Please fix the bug and provide a reward function to compile correctly.");
    expect(fix).toContain(BROKEN);
    expect(fix).toContain("did not compile");
    expect(fix).toContain("Its design idea: First: alive bonus.");
    const cs = byIndex(r.candidates);
    expect(cs[0]!.code).toBe(code(1));
    expect(cs[0]!.outcome.kind).toBe("result");
    expect(cs[0]!.repairs).toHaveLength(1);
    expect(cs[0]!.repairs![0]!.code).toBe(BROKEN);
    expect(cs[0]!.repairs![0]!.error).toMatch(/did not compile/);
    expect(cs[0]!.draftThought).toBe("Fixed: alive bonus.");
    // the self-evaluation shows the node's design thought and code, and asks for the expert's plan before the score
    const selfEval = userText(2);
    expect(selfEval).toContain("Design Idea: Fixed: alive bonus.");
    expect(selfEval).toContain(code(1));
    expect(selfEval.indexOf("imagine how an expert-level strategy")).toBeLessThan(selfEval.indexOf("with the numerical value limited to [-1,1]"));
    expect(selfEval).toContain('"score": <the similarity in [-1, 1]>}, the plan first');
    expect(cs[0]!.vSelf).toBe(0.5);
    expect(cs.slice(1).every((c) => c.repairs === undefined)).toBe(true);
  });

  it("different thought asks for a totally different form, showing every drawn node of the other branches, then the current reward", () => {
    const v = (index: number, k: number) => ({ index, thought: `idea ${index}`, code: code(k), fitness: index, feedback: `feedback ${index}` });
    const ctx = { task, instance, seen: new Set<string>(), rng: createRng(1), parent: v(4, 4), others: [v(1, 1), v(7, 7)] };
    const text = String(proposalMessages("different", ctx, "TASK").at(-1)!.content);
    expect(text).toContain("totally different form");
    expect(text).toContain("I have 3 existing reward functions");
    expect(text.indexOf("Design Idea: idea 1")).toBeLessThan(text.indexOf("Design Idea: idea 7"));
    expect(text.indexOf("Design Idea: idea 7")).toBeLessThan(text.indexOf("Design Idea: idea 4"));
    for (const k of [4, 1, 7]) expect(text).toContain(code(k));
    // a tree of one branch has no other to show: the current reward alone
    const alone = String(proposalMessages("different", { ...ctx, others: [] }, "TASK").at(-1)!.content);
    expect(alone).toContain("I have 1 existing reward functions");
    expect(alone).not.toContain("idea 1");
  });
});
