/**
 * A custom trainer for reward search (docs/trainer-protocol.md): one task, "reach", in which a point on a line
 * must reach a target, and a "policy" that is one gain k (action = k · (target − x)). Training is a random search
 * over k that maximises the user's reward code; F is 1 − the mean final distance to the target on the evaluation
 * seeds. It speaks the protocol through serveTrainer, so hello, cancel, bad requests and shutdown are handled.
 * Run it with `hexa trainer check -- node --import tsx examples/custom-trainer/trainer.ts`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { JobFailure, serveTrainer, type TrainerBackend } from "../../levels/reward-search/trainer/serve.ts";

const HORIZON = 20;
type Reward = (obs: number[], action: number[], nextObs: number[], info: Record<string, number>) => { total: number; components: Record<string, number> };

/** A seeded start and target in [−1, 1] (a linear congruential step: the same seed, the same episode). */
const episodeOf = (seed: number) => {
  const next = (s: number) => (s * 1103515245 + 12345) % 2 ** 31;
  const a = next(seed + 1);
  const b = next(a);
  return { x: (a / 2 ** 31) * 2 - 1, target: (b / 2 ** 31) * 2 - 1 };
};

/** Plays one episode with gain k; returns the summed reward and the final distance. */
const rollout = (k: number, seed: number, reward: Reward) => {
  let { x, target } = episodeOf(seed);
  let total = 0;
  for (let t = 0; t < HORIZON; t++) {
    const action = [Math.max(-0.2, Math.min(0.2, k * (target - x)))];
    const obs = [x, target];
    x += action[0]!;
    total += reward(obs, action, [x, target], { distance: Math.abs(target - x) }).total;
  }
  return { total, distance: Math.abs(target - x) };
};

/** The user's reward code as a function; code that does not compile is a reward_code fault with its message. */
const compile = (code: string): Reward => {
  try {
    return new Function(`${code}\nreturn reward;`)() as Reward;
  } catch (e) {
    throw new JobFailure("reward_code", `reward code does not compile: ${(e as Error).message}`, { kind: "syntax", message: (e as Error).message });
  }
};

const backend: TrainerBackend = {
  name: "reach-example",
  version: "0.1.0",
  tasks: [{ id: "reach", title: "Reach", description: "Move a point on a line to a target within 20 steps; F = 1 − mean final distance." }],
  train: async (job, { signal, progress }) => {
    const reward = compile(job.reward);
    const t0 = Date.now();
    const fitnessOf = (k: number) => 1 - job.evalSeeds.reduce((n, s) => n + rollout(k, s, reward).distance, 0) / job.evalSeeds.length;
    let best = { k: 0, score: rollout(0, job.seed, reward).total };
    const curve: { step: number; fitness: number }[] = [];
    let steps = 0;
    for (let it = 0; steps < job.steps; it++) {
      if (signal.aborted) throw new Error("cancelled");
      const k = episodeOf(job.seed + it).x * 2 + 1; // a candidate gain in [−1, 3]
      const score = rollout(k, job.seed, reward).total;
      if (score > best.score) best = { k, score };
      steps = Math.min(job.steps, steps + HORIZON);
      const fitness = fitnessOf(best.k);
      if (it % 10 === 0 || steps === job.steps) {
        curve.push({ step: steps, fitness });
        progress({ iteration: it, steps, fitness, episodeLength: HORIZON, components: {} });
        await new Promise((r) => setImmediate(r)); // lets a cancel arrive
      }
    }
    mkdirSync(job.jobDir, { recursive: true });
    const policy = join(job.jobDir, "policy.json");
    writeFileSync(policy, JSON.stringify({ gain: best.k }));
    const perSeed = job.evalSeeds.map((seed) => ({ seed, fitness: 1 - rollout(best.k, seed, reward).distance }));
    const fitness = perSeed.reduce((n, s) => n + s.fitness, 0) / perSeed.length;
    return {
      final: { fitness, perSeed },
      bestCheckpoint: { fitness, step: steps },
      components: {},
      episodeLength: [{ step: steps, mean: HORIZON }],
      fitnessCurve: curve,
      steps,
      wallMs: Date.now() - t0,
      policy,
    };
  },
};

await serveTrainer(backend);
