import { mkdtempSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, InvariantError } from "../../../src/errors.ts";
import { BudgetExceeded } from "../../../src/llm/budget.ts";
import { getTask } from "../tasks/index.ts";
import { composeReward } from "../heuristic/terms.ts";
import { createBudget, memoryLog, type CandidateLog, type CandidateRecord } from "./candidates.ts";
import { runEureka } from "./eureka.ts";
import { coverageScore, heuristicProposer } from "../proposers/heuristic-proposer.ts";
import type { Operator, ProposeContext, Proposer } from "./proposer.ts";
import { runRfAgent } from "./rf-agent.ts";
import { operatorCounts } from "./tree.ts";
import { jsonlCandidateLog, openSearchDir } from "./search.ts";
import { scoreOf, testTrainer } from "./test-trainer.ts";

const task = getTask("cartpole");
const instance = task.generate(3);
const run = (trainer: ReturnType<typeof testTrainer>, log: CandidateLog = memoryLog(), proposer: Proposer = heuristicProposer()) => ({
  task,
  instance,
  steps: 1000,
  seed: 5,
  proposer,
  ports: { trainer, log },
});

/** A proposer that records what it was asked (kind and context) and delegates to the heuristic one. */
const spying = () => {
  const inner = heuristicProposer();
  const asked: Array<{ kind: Operator; ctx: ProposeContext }> = [];
  const evaluated: string[] = [];
  const p: Proposer = {
    label: inner.label,
    propose: (kind, ctx) => {
      asked.push({ kind, ctx });
      return inner.propose(kind, ctx);
    },
    selfEvaluate: (code, ctx) => {
      evaluated.push(code);
      return inner.selfEvaluate!(code, ctx);
    },
    align: inner.align!,
  };
  return { p, asked, evaluated };
};

const expectSeedsHonest = (t: ReturnType<typeof testTrainer>) => {
  for (const j of t.jobs) {
    expect(j.seed).toBe(instance.trainSeed);
    expect(j.evalSeeds).toEqual(instance.evalSeeds);
    expect(j.evalSeeds).not.toContain(j.seed);
  }
};

const byIndex = (rs: readonly CandidateRecord[]) => [...rs].sort((a, b) => a.index - b.index);

describe("eureka", () => {
  it("K × I candidates, the iteration's best kept, its reflection fed back replacing the previous feedback", async () => {
    const t = testTrainer();
    const { p, asked } = spying();
    const log = memoryLog();
    const r = await runEureka(run(t, log, p), { samples: 3, iterations: 3 });
    expect(t.jobs).toHaveLength(9);
    expect(log.records).toHaveLength(9);
    expect(r.trainings).toBe(9);
    expect(byIndex(r.candidates).map((c) => c.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(asked.slice(0, 3).map((a) => a.kind)).toEqual(["initial", "initial", "initial"]);
    for (const it of [1, 2]) {
      const prev = r.candidates.filter((c) => c.iteration === it - 1);
      const best = prev.reduce((a, b) => (b.outcome.kind === "result" && a.outcome.kind === "result" && b.outcome.fitness > a.outcome.fitness ? b : a));
      for (const a of asked.slice(it * 3, it * 3 + 3)) {
        expect(a.kind).toBe("refine");
        expect(a.ctx.parent?.index).toBe(best.index);
        expect(a.ctx.feedback).toBe(best.feedback); // only the kept best's reflection, not an accumulation
      }
      for (const c of r.candidates.filter((x) => x.iteration === it)) expect(c.parent).toBe(best.index);
    }
    expectSeedsHonest(t);
  });

  it("a budget that is not a multiple of K is still exact", async () => {
    const t = testTrainer();
    const r = await runEureka({ ...run(t), budget: 5 }, { samples: 2 });
    expect(t.jobs).toHaveLength(5);
    expect(r.candidates.map((c) => c.iteration).sort()).toEqual([0, 0, 1, 1, 2]);
  });

  it("reports the final policy's F, never the best checkpoint", async () => {
    const t = testTrainer();
    const r = await runEureka({ ...run(t), budget: 4 }, { samples: 2 });
    const best = r.best!;
    expect(best.outcome.kind).toBe("result");
    if (best.outcome.kind !== "result") return;
    expect(best.outcome.fitness).toBe(scoreOf(best.code));
    expect(best.outcome.bestCheckpoint.fitness).toBe(scoreOf(best.code) + 100);
    expect(Math.max(...r.candidates.map((c) => (c.outcome.kind === "result" ? c.outcome.fitness : -Infinity)))).toBe(best.outcome.fitness);
  });
});

describe("rf-agent", () => {
  it("exact budget; expansions use the operator schedule; each child self-evaluates and trains on its own code", async () => {
    // Concurrent children finish out of order (delay from the code's hash).
    const t = testTrainer({ delayMs: (code) => scoreOf(code) % 25 });
    const { p, evaluated } = spying();
    const log = memoryLog();
    const r = await runRfAgent(run(t, log, p), { initial: 2, children: 5, budget: 12 });
    expect(t.jobs).toHaveLength(12);
    expect(log.records).toHaveLength(12);
    const cs = byIndex(r.candidates);
    expect(cs.slice(0, 2).map((c) => c.operator)).toEqual(["initial", "initial"]);
    expect(cs.slice(2, 7).map((c) => c.operator)).toEqual(["structural", "parameter", "crossover", "path", "structural"]);
    expect(cs.slice(7, 12).map((c) => c.operator)).toEqual(["structural", "parameter", "crossover", "path", "structural"]);
    for (const c of cs) {
      // its own code: the F reported is the F of this code, and the job that trained it carried this code
      if (c.outcome.kind === "result") expect(c.outcome.fitness).toBe(scoreOf(c.code));
      expect(t.jobs.some((j, i) => j.reward === c.code && t.labels[i]!.endsWith(`-c${c.index}`))).toBe(true);
      // the self-evaluation saw this node's code
      expect(c.vSelf).toBe(coverageScore(task.id, c.code));
      expect(evaluated).toContain(c.code);
      expect(c.code).toBe(composeReward(task.id, c.design!));
      // thought alignment after a successful training: one sentence from the design
      expect(c.thought).toMatch(/^The reward sums /);
      expect(c.draftThought).toBeDefined();
    }
    // every child of the first expansion hangs under one selected parent of the first layer
    expect(new Set(cs.slice(2, 7).map((c) => c.parent)).size).toBe(1);
    expect([0, 1]).toContain(cs[2]!.parent);
    const cross = cs.find((c) => c.operator === "crossover")!;
    expect(cross.related.length).toBeGreaterThanOrEqual(1);
    expect(cross.related.length).toBeLessThanOrEqual(3);
    expectSeedsHonest(t);
  });

  it("an expansion of 8 has the shares [2, 2, 2, 1, 1]; different thought reads another branch, path reasoning the ancestors", async () => {
    const t = testTrainer();
    const { p, asked } = spying();
    const r = await runRfAgent(run(t, memoryLog(), p), { initial: 2, children: 8, budget: 10 });
    const exp = byIndex(r.candidates).slice(2);
    expect(operatorCounts(exp.map((c) => c.operator as never))).toEqual([2, 2, 2, 1, 1]);
    const parent = exp[0]!.parent!;
    const diff = asked.find((a) => a.kind === "different")!;
    expect(diff.ctx.other).toBeDefined();
    expect(diff.ctx.other!.index).toBe(1 - parent); // the other root child: the only node of another branch
    const path = asked.find((a) => a.kind === "path")!;
    expect(path.ctx.ancestors!.map((a) => a.index)).toEqual([parent]);
    const cross = asked.find((a) => a.kind === "crossover")!;
    expect(cross.ctx.elites![0]!.index).toBe(parent);
    expect(cross.ctx.elites!.length).toBeGreaterThanOrEqual(2);
  });

  it("a failed training counts against the budget, its error is the feedback, and the node is never expanded", async () => {
    const t = testTrainer();
    // The second initial design is broken code.
    const inner = heuristicProposer();
    const p: Proposer = { ...inner, propose: async (k, ctx) => (ctx.seen.size === 1 && k === "initial" ? { thought: "broken", code: "function reward(obs { return" } : inner.propose(k, ctx)) };
    const r = await runRfAgent(run(t, memoryLog(), p), { initial: 2, children: 2, budget: 6 });
    expect(t.jobs).toHaveLength(6);
    const broken = r.candidates.find((c) => c.index === 1)!;
    expect(broken.outcome.kind).toBe("error");
    expect(broken.feedback).toMatch(/^ERROR in your reward code \(syntax, line 1\)/);
    expect(r.candidates.some((c) => c.parent === 1)).toBe(false);
    expect(broken.thought).toBe("broken"); // no alignment after a failure
  });

  it("the search refuses a training beyond its budget", async () => {
    const t = testTrainer();
    const b = createBudget({ task, instance, steps: 10, budget: 1, strategy: "rf-agent", ports: { trainer: t, log: memoryLog() } });
    await b.train(0, "function reward() {}");
    await expect(b.train(1, "function reward() {}")).rejects.toThrow(InvariantError);
    await expect(b.train(0, "function reward() {}")).rejects.toThrow(InvariantError);
    expect(t.jobs).toHaveLength(1);
  });
});

describe("guards", () => {
  it("a search refuses an instance whose evaluation seeds include the training seed", () => {
    const bad = { ...instance, evalSeeds: [instance.trainSeed, 100, 101] };
    expect(() => createBudget({ task, instance: bad, steps: 10, budget: 2, strategy: "eureka", ports: { trainer: testTrainer(), log: memoryLog() } })).toThrow(/include the training seed/);
  });

  it("a run directory holding another search is refused, the same search resumes", () => {
    const d = mkdtempSync(join(tmpdir(), "hexa-search-"));
    const header = { schemaVersion: 1 as const, strategy: "eureka" as const, task: "cartpole", seed: 0, budget: 4, trainSteps: 100, proposer: "heuristic (no LLM)", options: {} };
    openSearchDir(d, header);
    expect(() => openSearchDir(d, header)).not.toThrow();
    expect(() => openSearchDir(d, { ...header, budget: 5 })).toThrow(ConfigError);
  });
});

describe("resume", () => {
  const dir = () => mkdtempSync(join(tmpdir(), "hexa-search-"));

  it.each(["eureka", "rf-agent"] as const)("%s: a log cut mid-search (torn last line) resumes with the budget exact and the same candidates", async (strategy) => {
    const go = (t: ReturnType<typeof testTrainer>, log: CandidateLog) =>
      strategy === "eureka" ? runEureka({ ...run(t, log), budget: 7 }, { samples: 3 }) : runRfAgent({ ...run(t, log), budget: 7 }, { initial: 2, children: 3 });
    const whole = await go(testTrainer(), memoryLog());

    const d = dir();
    const first = testTrainer();
    await go(first, jsonlCandidateLog(d));
    const path = join(d, "candidates.jsonl");
    const lines = readFileSync(path, "utf8").split("\n").filter(Boolean);
    expect(lines).toHaveLength(7);
    // keep 4 finished lines and half of the fifth: what a kill -9 during a write leaves
    writeFileSync(path, `${lines.slice(0, 4).join("\n")}\n${lines[4]!.slice(0, 30)}`);
    const again = testTrainer();
    const resumed = await go(again, jsonlCandidateLog(d));
    expect(resumed.replayed).toBe(4);
    expect(again.jobs).toHaveLength(3); // 7 − 4: nothing finished is retrained
    expect(resumed.candidates).toHaveLength(7);
    expect(readFileSync(path, "utf8").split("\n").filter(Boolean)).toHaveLength(7);
    const strip = (rs: readonly CandidateRecord[]) => byIndex(rs).map((c) => ({ index: c.index, operator: c.operator, parent: c.parent, code: c.code, related: c.related }));
    expect(strip(resumed.candidates)).toEqual(strip(whole.candidates));
    // a finished search resumed trains nothing
    const third = testTrainer();
    const done = await go(third, jsonlCandidateLog(d));
    expect(third.jobs).toHaveLength(0);
    expect(done.replayed).toBe(7);
  });

  it("an empty log file left by a kill before the first line is a fresh start", async () => {
    const d = dir();
    writeFileSync(join(d, "candidates.jsonl"), "");
    const t = testTrainer();
    await runEureka({ ...run(t, jsonlCandidateLog(d)), budget: 2 }, { samples: 2 });
    expect(t.jobs).toHaveLength(2);
    truncateSync(join(d, "candidates.jsonl"), 0);
  });

  it("a proposer that stops mid-batch (the spend cap) has the proposals it made trained and committed first, then the error thrown", async () => {
    const refused = new BudgetExceeded("stopped: budget");
    const inner = heuristicProposer();
    let asked = 0;
    // The spend cap refuses the third proposal: the first two of the batch of three are trained and kept.
    const capped: Proposer = { ...inner, label: inner.label, propose: (k, ctx) => (++asked === 3 ? Promise.reject(refused) : inner.propose(k, ctx)) };
    const log = memoryLog();
    const t = testTrainer({ delayMs: () => 5 });
    await expect(runEureka({ ...run(t, log, capped), budget: 4 }, { samples: 3 })).rejects.toBe(refused);
    expect(t.jobs).toHaveLength(2);
    expect(byIndex(log.records).map((c) => c.index)).toEqual([0, 1]);
    const again = testTrainer();
    const resumed = await runEureka({ ...run(again, log), budget: 4 }, { samples: 3 });
    expect(resumed.replayed).toBe(2);
    expect(again.jobs).toHaveLength(2);
    expect(byIndex(resumed.candidates).map((c) => c.index)).toEqual([0, 1, 2, 3]);
  });
});
