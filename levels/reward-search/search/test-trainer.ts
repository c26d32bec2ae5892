import type { JobResult } from "../trainer/client.ts";
import type { PoolJob, PoolOutcome, PoolTrainOptions, TrainerPool } from "../trainer/pool.ts";

/**
 * An in-process stand-in for the trainer pool, for the strategies' tests: F is a hash of the reward code (so
 * a result can be matched to the code it trained on), the best checkpoint is always above the final F (so a
 * test can tell which one is reported), code that does not define `reward` fails as reward code, and an
 * optional delay per job makes concurrent jobs finish out of order.
 */
export const scoreOf = (code: string): number => [...code].reduce((a, c) => (a * 31 + c.charCodeAt(0)) % 10007, 7) / 20;

export interface TestTrainer extends Pick<TrainerPool, "train"> {
  jobs: PoolJob[];
  labels: string[];
}

export const testTrainer = (o: { delayMs?: (code: string) => number } = {}): TestTrainer => {
  const jobs: PoolJob[] = [];
  const labels: string[] = [];
  return {
    jobs,
    labels,
    train: async (job: PoolJob, opts: PoolTrainOptions = {}): Promise<PoolOutcome> => {
      jobs.push(job);
      labels.push(opts.label ?? "");
      const code = job.reward;
      await new Promise((r) => setTimeout(r, o.delayMs?.(code) ?? 0));
      if (!/function\s+reward\s*\(/.test(code)) {
        return {
          kind: "error",
          error: {
            kind: "reward_code",
            message: "the code defines no function reward(obs, action, nextObs, info)",
            fault: { kind: "shape", message: "no reward function" },
          },
          cached: false,
          jobDir: null,
        };
      }
      try {
        new Function(code);
      } catch (e) {
        return {
          kind: "error",
          error: { kind: "reward_code", message: (e as Error).message, fault: { kind: "syntax", message: (e as Error).message, line: 1 } },
          cached: false,
          jobDir: null,
        };
      }
      const f = scoreOf(code);
      const result: JobResult = {
        final: { fitness: f, perSeed: job.evalSeeds.map((seed) => ({ seed, fitness: f })) },
        bestCheckpoint: { fitness: f + 100, step: Math.floor(job.steps / 2) },
        components: { alive: [{ step: job.steps, mean: 1, min: 1, max: 1 }], shaped: [{ step: job.steps, mean: f / 500, min: 0, max: 1 }] },
        episodeLength: [{ step: job.steps, mean: 20 }],
        fitnessCurve: [{ step: job.steps, fitness: f }],
        steps: job.steps,
        wallMs: 1,
        policy: "policy.json",
      };
      return { kind: "result", result, cached: false, jobDir: null };
    },
  };
};
