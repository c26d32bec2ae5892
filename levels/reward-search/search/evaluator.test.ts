import { describe, expect, it } from "vitest";
import { memoryLog } from "../../../src/search/candidates.ts";
import { RfAgentConfig } from "../../../src/search/config.ts";
import { runRfAgent } from "../../../src/search/rf-agent.ts";
import { composeTerms } from "../heuristic/terms.ts";
import { libraryTerms } from "../heuristic/term-library.ts";
import { coverageScore, heuristicProposer } from "../proposers/heuristic-proposer.ts";
import { getTask } from "../tasks/index.ts";
import { trainerEvaluator } from "./evaluator.ts";
import { scoreOf, testTrainer } from "./test-trainer.ts";

/** The family's ports in src/search's RF-Agent: the trainer evaluator and the heuristic proposer. */
describe("reward search's evaluator and heuristic proposer in a search", () => {
  it("each candidate is one training of its own code on the instance's seeds, labelled by method, task, seed and index", async () => {
    const task = getTask("cartpole");
    const instance = task.generate(3);
    const t = testTrainer();
    const r = await runRfAgent(
      { task, instance, seed: 5, budget: 7, proposer: heuristicProposer(), ports: { evaluator: trainerEvaluator(t, 1000), log: memoryLog() } },
      RfAgentConfig.parse({ initial: 2, children: 5 }),
    );
    expect(t.jobs).toHaveLength(7);
    for (const c of r.candidates) {
      const i = t.labels.indexOf(`rf-agent-cartpole-s3-c${c.index}`);
      expect(t.jobs[i]).toMatchObject({ task: "cartpole", reward: c.code, steps: 1000, seed: instance.trainSeed, evalSeeds: instance.evalSeeds });
      expect(t.jobs[i]!.evalSeeds).not.toContain(t.jobs[i]!.seed);
      if (c.outcome.kind === "result") expect(c.outcome.fitness).toBe(scoreOf(c.code));
      expect(c.code).toBe(composeTerms(task.id, libraryTerms(task), c.design!));
      expect(c.vSelf).toBe(coverageScore(libraryTerms(task), c.code));
      expect(c.thought).toMatch(/^The reward sums /);
    }
  });
});
