import { describe, expect, it } from "vitest";
import { memoryLog, type CandidateRecord } from "./candidates.ts";
import { RfAgentConfig } from "./config.ts";
import { runEureka } from "./eureka.ts";
import { runRfAgent } from "./rf-agent.ts";
import { fakeEvaluator, fakeInstance as instance, fakeTask as task, scriptedProposer } from "./test-fakes.ts";

/** RF-Agent's operator cycle over expansions and its first designs against Eureka's (docs/spec/reward-search.md §8.4). */
const rf = (o: Partial<RfAgentConfig>) => RfAgentConfig.parse(o);
const withLog = (budget: number) => ({
  task,
  instance,
  seed: 5,
  proposer: scriptedProposer(),
  budget,
  ports: { evaluator: fakeEvaluator(), log: memoryLog() },
});
const byIndex = (rs: readonly CandidateRecord[]) => [...rs].sort((a, b) => a.index - b.index);

describe("rf-agent's operators and first designs", () => {
  it("children 2 runs all five operators over a search: the cycle is carried across expansions", async () => {
    const r = await runRfAgent(withLog(10), rf({ initial: 2, children: 2 }));
    expect(byIndex(r.candidates).map((c) => c.operator)).toEqual([
      "initial",
      "initial",
      "structural",
      "parameter",
      "crossover",
      "path",
      "structural",
      "parameter",
      "crossover",
      "different",
    ]);
  });

  it("draws its first designs independently of eureka's, unless sharedInitial asks for eureka's streams", async () => {
    const first = (r: { candidates: readonly CandidateRecord[] }) =>
      byIndex(r.candidates)
        .slice(0, 3)
        .map((c) => c.code);
    const eureka = first(await runEureka(withLog(3), { samples: 3 }));
    const own = first(await runRfAgent(withLog(3), rf({ initial: 3 })));
    const shared = first(await runRfAgent(withLog(3), rf({ initial: 3, sharedInitial: true })));
    expect(shared).toEqual(eureka);
    for (let i = 0; i < 3; i++) expect(own[i]).not.toBe(eureka[i]);
  });
});
