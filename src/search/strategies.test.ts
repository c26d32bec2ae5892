import { mkdtempSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, InvariantError } from "../errors.ts";
import { createBudget, memoryLog, type CandidateLog, type CandidateRecord } from "./candidates.ts";
import { RfAgentConfig, SearchConfig } from "./config.ts";
import { runEureka } from "./eureka.ts";
import type { Operator, ProposeContext, Proposer } from "./proposer.ts";
import { runRfAgent } from "./rf-agent.ts";
import { runSearch } from "./search.ts";
import { jsonlCandidateLog, openSearchDir } from "./search-dir.ts";
import {
  fakeEvaluator,
  fakeInstance as instance,
  fakeTask as task,
  scoreOf,
  scriptedProposer,
  vSelfOf,
  type FakeEvaluator,
  type FakeInstance,
  type FakeTask,
} from "./test-fakes.ts";
import { operatorCounts } from "./tree.ts";

/** The methods on the generic ports: a scripted proposer and a fake evaluator (test-fakes.ts). */
type P = Proposer<FakeTask, FakeInstance>;
const rf = (o: Partial<RfAgentConfig>) => RfAgentConfig.parse(o);
const run = (evaluator: FakeEvaluator, budget: number, log: CandidateLog = memoryLog(), proposer: P = scriptedProposer()) => ({
  task,
  instance,
  seed: 5,
  proposer,
  budget,
  ports: { evaluator, log },
});

/** A proposer that records what it was asked (kind and context) and delegates to the scripted one. */
const spying = () => {
  const inner = scriptedProposer();
  const asked: Array<{ kind: Operator; ctx: ProposeContext<FakeTask, FakeInstance> }> = [];
  const evaluated: string[] = [];
  const thoughts: string[] = [];
  const p: P = {
    label: inner.label,
    propose: (kind, ctx) => {
      asked.push({ kind, ctx });
      return inner.propose(kind, ctx);
    },
    selfEvaluate: (node, ctx) => {
      evaluated.push(node.code);
      thoughts.push(node.thought);
      return inner.selfEvaluate!(node, ctx);
    },
    align: inner.align!,
  };
  return { p, asked, evaluated, thoughts };
};

const byIndex = (rs: readonly CandidateRecord[]) => [...rs].sort((a, b) => a.index - b.index);

describe("eureka", () => {
  it("K × I candidates, the iteration's best kept, its reflection fed back replacing the previous feedback", async () => {
    const e = fakeEvaluator();
    const { p, asked } = spying();
    const log = memoryLog();
    const r = await runEureka(run(e, 9, log, p), { samples: 3 });
    expect(e.requests).toHaveLength(9);
    expect(log.records).toHaveLength(9);
    expect(r.evaluations).toBe(9);
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
    for (const c of r.candidates) expect([c.trainSeed, c.evalSeeds]).toEqual([instance.trainSeed, instance.evalSeeds]);
  });

  it("a budget that is not a multiple of K is still exact", async () => {
    const e = fakeEvaluator();
    const r = await runEureka(run(e, 5), { samples: 2 });
    expect(e.requests).toHaveLength(5);
    expect(r.candidates.map((c) => c.iteration).sort()).toEqual([0, 0, 1, 1, 2]);
  });

  it("reports the fitness, never the best checkpoint", async () => {
    const r = await runEureka(run(fakeEvaluator(), 4), { samples: 2 });
    const best = r.best!;
    expect(best.outcome.kind).toBe("result");
    if (best.outcome.kind !== "result") return;
    expect(best.outcome.fitness).toBe(scoreOf(best.code));
    expect(best.outcome.bestCheckpoint.fitness).toBe(scoreOf(best.code) + 100);
    expect(Math.max(...r.candidates.map((c) => (c.outcome.kind === "result" ? c.outcome.fitness : -Infinity)))).toBe(best.outcome.fitness);
  });
});

describe("rf-agent", () => {
  it("exact budget; expansions use the operator schedule; each child self-evaluates and is evaluated on its own code", async () => {
    // Concurrent children finish out of order (delay from the code's hash).
    const e = fakeEvaluator({ delayMs: (code) => scoreOf(code) % 25 });
    const { p, evaluated, thoughts } = spying();
    const log = memoryLog();
    const r = await runRfAgent(run(e, 12, log, p), rf({ initial: 2, children: 5 }));
    expect(e.requests).toHaveLength(12);
    expect(log.records).toHaveLength(12);
    const cs = byIndex(r.candidates);
    expect(cs.slice(0, 2).map((c) => c.operator)).toEqual(["initial", "initial"]);
    expect(cs.slice(2, 7).map((c) => c.operator)).toEqual(["structural", "parameter", "crossover", "path", "structural"]);
    // The second expansion carries the cycle on where the first stopped.
    expect(cs.slice(7, 12).map((c) => c.operator)).toEqual(["parameter", "crossover", "different", "structural", "parameter"]);
    for (const c of cs) {
      // its own code: the fitness reported is this code's, and the request that scored it carried this code
      if (c.outcome.kind === "result") expect(c.outcome.fitness).toBe(scoreOf(c.code));
      expect(e.requests.some((q) => q.code === c.code && q.index === c.index && q.method === "rf-agent")).toBe(true);
      // the self-evaluation saw this node's code
      expect(c.vSelf).toBe(vSelfOf(c.code));
      expect(evaluated).toContain(c.code);
      // …and its design thought as proposed
      expect(thoughts[evaluated.indexOf(c.code)]).toBe(c.draftThought);
      // thought alignment after a successful evaluation, cut to 4 sentences, with the proposal's design
      expect(c.thought).toBe(`Aligned ${c.code} with design ${c.design!.k}. Second sentence.`);
      expect(c.draftThought).toMatch(/ of #/);
    }
    // every child of the first expansion hangs under one selected parent of the first layer
    expect(new Set(cs.slice(2, 7).map((c) => c.parent)).size).toBe(1);
    expect([0, 1]).toContain(cs[2]!.parent);
    const cross = cs.find((c) => c.operator === "crossover")!;
    expect(cross.related.length).toBeGreaterThanOrEqual(1);
    expect(cross.related.length).toBeLessThanOrEqual(3);
  });

  it("an expansion of 8 has the shares [2, 2, 2, 1, 1]; different thought reads another branch, path reasoning the ancestors", async () => {
    const { p, asked } = spying();
    const r = await runRfAgent(run(fakeEvaluator(), 10, memoryLog(), p), rf({ initial: 2, children: 8 }));
    const exp = byIndex(r.candidates).slice(2);
    expect(operatorCounts(exp.map((c) => c.operator as never))).toEqual([2, 2, 2, 1, 1]);
    const parent = exp[0]!.parent!;
    const diff = asked.find((a) => a.kind === "different")!;
    expect(diff.ctx.others!.map((o) => o.index)).toEqual([1 - parent]); // the other root child: the only other branch, a leaf
    expect(exp.find((c) => c.operator === "different")!.related).toEqual([1 - parent]);
    expect(asked.find((a) => a.kind === "path")!.ctx.ancestors!.map((a) => a.index)).toEqual([parent]);
    const cross = asked.find((a) => a.kind === "crossover")!;
    expect(cross.ctx.elites![0]!.index).toBe(parent);
    expect(cross.ctx.elites!.length).toBeGreaterThanOrEqual(2);
  });

  it("crossover draws its elites from the elite set: the best 10 trained nodes before the expansion, less the parent", async () => {
    const { p, asked } = spying();
    const r = await runRfAgent(run(fakeEvaluator(), 40, memoryLog(), p), rf({ initial: 6, children: 8 }));
    const cs = byIndex(r.candidates);
    const crosses = cs.filter((c) => c.operator === "crossover");
    expect(crosses.length).toBeGreaterThanOrEqual(8);
    let beyondTen = 0;
    for (const c of crosses) {
      const before = cs.filter((x) => x.iteration < c.iteration && x.outcome.kind === "result");
      if (before.length > 10) beyondTen++;
      const top = [...before]
        .sort((a, b) => scoreOf(b.code) - scoreOf(a.code) || a.index - b.index)
        .slice(0, 10)
        .map((x) => x.index);
      expect(c.related.length).toBeGreaterThanOrEqual(1);
      expect(c.related.length).toBeLessThanOrEqual(3);
      expect(new Set(c.related).size).toBe(c.related.length);
      expect(c.related).not.toContain(c.parent);
      for (const i of c.related) expect(top).toContain(i);
      const ctx = asked.find((a) => a.ctx.index === c.index)!.ctx;
      expect(ctx.elites!.map((e) => e.index)).toEqual([c.parent, ...c.related]);
    }
    expect(beyondTen).toBeGreaterThan(0); // the cap mattered: some expansions had more than 10 trained nodes to draw from
  });

  it("a failed evaluation counts against the budget, its error is the feedback, and the node is never expanded", async () => {
    const e = fakeEvaluator();
    const inner = scriptedProposer();
    const p: P = { ...inner, propose: async (k, ctx) => (ctx.index === 1 ? { thought: "broken", code: "broken code" } : inner.propose(k, ctx)) };
    const r = await runRfAgent(run(e, 6, memoryLog(), p), rf({ initial: 2, children: 2 }));
    expect(e.requests).toHaveLength(6);
    const broken = r.candidates.find((c) => c.index === 1)!;
    expect(broken.outcome.kind).toBe("error");
    expect(broken.feedback).toBe("ERROR: broken code");
    expect(r.candidates.some((c) => c.parent === 1)).toBe(false);
    expect(broken.thought).toBe("broken"); // no alignment after a failure
  });

  it("re-debug: a code the check refuses goes back to the proposer with its error, up to debugTries fixes, before one evaluation", async () => {
    // Candidate 1 first proposes broken code; each fix repeats the break until `fixedAfter` fixes.
    const script = (fixedAfter: number) => {
      const inner = scriptedProposer();
      const fixes: Array<{ index: number | undefined; code: string; error: string }> = [];
      const checked: string[] = [];
      const p: P = {
        ...inner,
        propose: async (k, ctx) => (ctx.index === 1 ? { thought: "a broken idea", code: "broken code v0" } : inner.propose(k, ctx)),
        repair: async (_k, ctx, failed) => {
          fixes.push({ index: ctx.index, code: failed.code, error: failed.error });
          const n = fixes.length;
          return { thought: `fix ${n}`, code: n >= fixedAfter ? `fixed code ${n}` : `broken code v${n}` };
        },
      };
      const check = async ({ code }: { code: string }) => {
        checked.push(code);
        return code.includes("broken") ? `error in ${code}` : null;
      };
      return { p, fixes, checked, check };
    };
    const go = async (fixedAfter: number, debugTries: number) => {
      const s = script(fixedAfter);
      const e = fakeEvaluator();
      const r = await runRfAgent(
        { ...run(e, 4, memoryLog(), s.p), ports: { evaluator: e, log: memoryLog(), check: s.check } },
        rf({ initial: 2, children: 2, debugTries }),
      );
      return { ...s, e, c1: r.candidates.find((c) => c.index === 1)! };
    };
    // fixed by the second fix: two fixes asked, each shown the refused code and its error; one evaluation, of the fix
    const ok = await go(2, 3);
    expect(ok.fixes).toEqual([
      { index: 1, code: "broken code v0", error: "error in broken code v0" },
      { index: 1, code: "broken code v1", error: "error in broken code v1" },
    ]);
    expect(ok.e.requests).toHaveLength(4); // the training budget: exactly one evaluation per candidate
    expect(ok.e.requests.filter((q) => q.index === 1).map((q) => q.code)).toEqual(["fixed code 2"]);
    expect(ok.c1.code).toBe("fixed code 2");
    expect(ok.c1.outcome.kind).toBe("result");
    expect(ok.c1.repairs).toEqual([
      { code: "broken code v0", error: "error in broken code v0" },
      { code: "broken code v1", error: "error in broken code v1" },
    ]);
    expect(ok.c1.draftThought).toBe("fix 2");
    expect(ok.checked.filter((c) => c.startsWith("broken") || c.startsWith("fixed"))).toEqual(["broken code v0", "broken code v1", "fixed code 2"]);
    // the tries run out: the last fix is evaluated unchecked, fails there, and costs its one evaluation
    const out = await go(5, 2);
    expect(out.fixes.map((f) => f.code)).toEqual(["broken code v0", "broken code v1"]);
    expect(out.c1.code).toBe("broken code v2");
    expect(out.c1.outcome.kind).toBe("error");
    expect(out.c1.repairs).toHaveLength(2);
    expect(out.e.requests).toHaveLength(4);
    // the third refusal in a row asks the operator's prompt afresh (RF-Agent's reference code), then fixes resume
    const restart = script(99);
    const proposed: number[] = [];
    const e5 = fakeEvaluator();
    const p5: P = {
      ...restart.p,
      propose: async (k, ctx) => {
        if (ctx.index === 1) proposed.push(restart.fixes.length);
        return restart.p.propose(k, ctx);
      },
    };
    const r5 = await runRfAgent(
      { ...run(e5, 4, memoryLog(), p5), ports: { evaluator: e5, log: memoryLog(), check: restart.check } },
      rf({ initial: 2, children: 2, debugTries: 5 }),
    );
    expect(proposed).toEqual([0, 2]); // the first proposal, and a fresh one after fixes 1 and 2 failed
    expect(restart.fixes.map((f) => f.code)).toEqual(["broken code v0", "broken code v1", "broken code v0", "broken code v3"]);
    expect(r5.candidates.find((c) => c.index === 1)!.repairs).toHaveLength(5);
    expect(e5.requests).toHaveLength(4);
    // debugTries 0: no check, no fix
    const off = await go(1, 0);
    expect(off.fixes).toEqual([]);
    expect(off.checked).toEqual([]);
    expect(off.c1.repairs).toBeUndefined();
    expect(off.c1.outcome.kind).toBe("error");
  });

  it("λ's ends and η are knobs: the defaults are RF-Agent's, others change the selection", async () => {
    const same = await runRfAgent(run(fakeEvaluator(), 10), rf({ initial: 2, children: 2 }));
    const again = await runSearch(
      "rf-agent",
      run(fakeEvaluator(), 10),
      SearchConfig.parse({ budget: 10, rfAgent: { initial: 2, children: 2, lambdaStart: 0.4, lambdaEnd: 0.1, eta: 0.7 } }),
    );
    expect(again.candidates.map((c) => c.code)).toEqual(same.candidates.map((c) => c.code));
    const greedy = await runRfAgent(run(fakeEvaluator(), 10), rf({ initial: 2, children: 2, lambdaStart: 0, lambdaEnd: 0, eta: 1 }));
    expect(greedy.candidates).toHaveLength(10);
  });

  it("the search refuses an evaluation beyond its budget", async () => {
    const e = fakeEvaluator();
    const b = createBudget({ task, instance, budget: 1, method: "rf-agent", ports: { evaluator: e, log: memoryLog() } });
    await b.evaluate(0, "c");
    await expect(b.evaluate(1, "c")).rejects.toThrow(InvariantError);
    await expect(b.evaluate(0, "c")).rejects.toThrow(InvariantError);
    expect(e.requests).toHaveLength(1);
  });
});

describe("guards", () => {
  it("a search refuses an instance whose evaluation seeds include the training seed", () => {
    const bad = { ...instance, evalSeeds: [instance.trainSeed, 100, 101] };
    expect(() => createBudget({ task, instance: bad, budget: 2, method: "eureka", ports: { evaluator: fakeEvaluator(), log: memoryLog() } })).toThrow(
      /include the training seed/,
    );
  });

  it("a run directory holding another search is refused, the same search resumes", () => {
    const d = mkdtempSync(join(tmpdir(), "hexa-search-"));
    const header = {
      schemaVersion: 1 as const,
      strategy: "eureka" as const,
      task: "toy",
      seed: 0,
      budget: 4,
      trainSteps: 100,
      proposer: "scripted",
      options: {},
    };
    openSearchDir(d, header);
    expect(() => openSearchDir(d, header)).not.toThrow();
    expect(() => openSearchDir(d, { ...header, budget: 5 })).toThrow(ConfigError);
  });
});

describe("resume", () => {
  const dir = () => mkdtempSync(join(tmpdir(), "hexa-search-"));

  it.each(["eureka", "rf-agent"] as const)(
    "%s: a log cut mid-search (torn last line) resumes with the budget exact and the same candidates",
    async (method) => {
      const go = (e: FakeEvaluator, log: CandidateLog) =>
        method === "eureka" ? runEureka(run(e, 7, log), { samples: 3 }) : runRfAgent(run(e, 7, log), rf({ initial: 2, children: 3 }));
      const whole = await go(fakeEvaluator(), memoryLog());
      const d = dir();
      await go(fakeEvaluator(), jsonlCandidateLog(d));
      const path = join(d, "candidates.jsonl");
      const lines = readFileSync(path, "utf8").split("\n").filter(Boolean);
      expect(lines).toHaveLength(7);
      // keep 4 finished lines and half of the fifth: what a kill -9 during a write leaves
      writeFileSync(path, `${lines.slice(0, 4).join("\n")}\n${lines[4]!.slice(0, 30)}`);
      const again = fakeEvaluator();
      const resumed = await go(again, jsonlCandidateLog(d));
      expect(resumed.replayed).toBe(4);
      expect(again.requests).toHaveLength(3); // 7 − 4: nothing finished is evaluated again
      expect(resumed.candidates).toHaveLength(7);
      expect(readFileSync(path, "utf8").split("\n").filter(Boolean)).toHaveLength(7);
      const strip = (rs: readonly CandidateRecord[]) =>
        byIndex(rs).map((c) => ({ index: c.index, operator: c.operator, parent: c.parent, code: c.code, related: c.related }));
      expect(strip(resumed.candidates)).toEqual(strip(whole.candidates));
      // a finished search resumed evaluates nothing
      const third = fakeEvaluator();
      const done = await go(third, jsonlCandidateLog(d));
      expect(third.requests).toHaveLength(0);
      expect(done.replayed).toBe(7);
    },
  );

  it("rf-agent: a log grown under other selection rules (an older hexa) resumes with its tree as logged", async () => {
    const whole = await runRfAgent(run(fakeEvaluator(), 7), rf({ initial: 2, children: 3 }));
    const cs = byIndex(whole.candidates);
    const chosen = cs[2]!.parent!;
    // The older rules had expanded the other first design: the log's second expansion hangs under it.
    const old = cs.slice(0, 5).map((c) => (c.index >= 2 ? { ...c, parent: 1 - chosen } : c));
    const e = fakeEvaluator();
    const resumed = await runRfAgent(run(e, 7, memoryLog(old)), rf({ initial: 2, children: 3 }));
    expect(resumed.replayed).toBe(5);
    expect(e.requests).toHaveLength(2);
    const rs = byIndex(resumed.candidates);
    expect(rs.slice(2, 5).map((c) => c.parent)).toEqual([1 - chosen, 1 - chosen, 1 - chosen]);
    expect(resumed.root.children.find((x) => x.index === 1 - chosen)!.children.map((x) => x.index)).toEqual([2, 3, 4]);
  });

  it("an empty log file left by a kill before the first line is a fresh start", async () => {
    const d = dir();
    writeFileSync(join(d, "candidates.jsonl"), "");
    const e = fakeEvaluator();
    await runEureka(run(e, 2, jsonlCandidateLog(d)), { samples: 2 });
    expect(e.requests).toHaveLength(2);
    truncateSync(join(d, "candidates.jsonl"), 0);
  });

  it("a proposer that stops mid-batch (the spend cap) has the proposals it made evaluated and committed first, then the error thrown", async () => {
    const refused = new Error("stopped: budget");
    const inner = scriptedProposer();
    let asked = 0;
    // The spend cap refuses the third proposal: the first two of the batch of three are evaluated and kept.
    const capped: P = { ...inner, propose: (k, ctx) => (++asked === 3 ? Promise.reject(refused) : inner.propose(k, ctx)) };
    const log = memoryLog();
    const e = fakeEvaluator({ delayMs: () => 5 });
    await expect(runEureka(run(e, 4, log, capped), { samples: 3 })).rejects.toBe(refused);
    expect(e.requests).toHaveLength(2);
    expect(byIndex(log.records).map((c) => c.index)).toEqual([0, 1]);
    const again = fakeEvaluator();
    const resumed = await runEureka(run(again, 4, log), { samples: 3 });
    expect(resumed.replayed).toBe(2);
    expect(again.requests).toHaveLength(2);
    expect(byIndex(resumed.candidates).map((c) => c.index)).toEqual([0, 1, 2, 3]);
  });
});
