import type { Evaluation, EvaluateRequest, Evaluator } from "./evaluator.ts";
import type { Proposer } from "./proposer.ts";

/**
 * Stand-ins for the two ports, for the methods' tests: no family, no model, no trainer. A task is a name and an
 * instance its seeds; the fitness is a hash of the code (so a result can be matched to the code it scored), the
 * best checkpoint is always above it (so a test can tell which one is reported), and code containing "broken"
 * fails. The proposer writes a numbered code per call from the candidate's own random stream.
 */

export interface FakeTask {
  id: string;
}
export interface FakeInstance {
  seed: number;
  trainSeed: number;
  evalSeeds: number[];
}

export const fakeTask: FakeTask = { id: "toy" };
export const fakeInstance: FakeInstance = { seed: 3, trainSeed: 3, evalSeeds: [1003, 1004, 1005] };

export const scoreOf = (code: string): number => [...code].reduce((a, c) => (a * 31 + c.charCodeAt(0)) % 10007, 7) / 20;

export interface FakeEvaluator extends Evaluator<FakeTask, FakeInstance> {
  requests: EvaluateRequest<FakeTask, FakeInstance>[];
}

export const fakeEvaluator = (o: { delayMs?: (code: string) => number } = {}): FakeEvaluator => {
  const requests: EvaluateRequest<FakeTask, FakeInstance>[] = [];
  return {
    requests,
    evaluate: async (req): Promise<Evaluation> => {
      requests.push(req);
      await new Promise((r) => setTimeout(r, o.delayMs?.(req.code) ?? 0));
      if (req.code.includes("broken")) return { outcome: { kind: "error", error: "bad_code", message: "broken code" }, feedback: "ERROR: broken code" };
      const f = scoreOf(req.code);
      const perSeed = req.instance.evalSeeds.map((seed) => ({ seed, fitness: f }));
      return {
        outcome: { kind: "result", fitness: f, perSeed, bestCheckpoint: { fitness: f + 100, step: 5 }, steps: 10, cached: false },
        feedback: `reflection of ${req.code}`,
      };
    },
  };
};

/** The self-evaluation of a code: a number in [−1, 1] from its hash. */
export const vSelfOf = (code: string): number => (scoreOf(code) % 200) / 100 - 1;

export const scriptedProposer = (): Proposer<FakeTask, FakeInstance> => ({
  label: "scripted",
  propose: async (kind, ctx) => {
    const k = ctx.rng.integers(0, 1_000_000);
    return { thought: `${kind} of #${ctx.parent?.index ?? "-"}.`, code: `code ${kind} ${ctx.index} ${k}`, design: { k } };
  },
  selfEvaluate: async ({ code }) => ({ value: vSelfOf(code) }),
  align: async (code, _thought, ctx) => `Aligned ${code} with design ${ctx.design?.k}. Second sentence.`,
});
