import { type CertifyBudget, DEFAULT_BUDGET } from "./certify-budget.ts";
import { checkPlacement } from "./world/placement.ts";
import { createRng, type Rng } from "../../src/util/rng.ts";
import { rollout } from "./world/rollout.ts";
import type { Action } from "./world/simulation.ts";
import type { CreateEngine } from "./world/engine.ts";
import { createInstance, type LevelInstance } from "./instance.ts";

/**
 * The oracle search that certifies a seed (docs/spec/interphyre.md §3.2, in our own world): a seed is kept when the
 * scene does not solve itself, a tiny ball in any corner does not solve it, and a search finds a placement
 * that does. The search samples placements at random, then refines around the near misses.
 */
export type CertifyResult =
  | { seed: number; status: "certified"; solution: [number, number, number]; rollouts: number; successStep: number }
  | { seed: number; status: "trivial" | "corner_trivial" | "unsolved"; rollouts: number };

const CORNER = 4.3;
const CORNER_RADIUS = 0.1;
const round4 = (v: number) => Math.round(v * 1e4) / 1e4;

interface Trial {
  action: Action;
  score: number;
  success: boolean;
  successStep: number;
}

/** Near-miss score: how long the goal pair held contact, else how close the two came (higher is better). */
const tryAction = (inst: LevelInstance, action: Action, horizon: number, engine?: CreateEngine): Trial => {
  const [a, b] = inst.goal;
  let held = 0;
  let closest = Infinity;
  const r = rollout(
    { scene: inst.scene, goal: inst.goal, action },
    {
      engine,
      horizon,
      recordContacts: false,
      stopWhenSettled: true,
      onStep: (sim) => {
        held = Math.max(held, sim.contacts.duration(a, b));
        if (sim.stepCount % 5 === 0 && sim.engine.has(a) && sim.engine.has(b)) {
          const p = sim.engine.state(a);
          const q = sim.engine.state(b);
          closest = Math.min(closest, Math.hypot(p.x - q.x, p.y - q.y));
        }
      },
    },
  );
  return { action, score: held > 0 ? 10 + held : -closest, success: r.success, successStep: r.successStep ?? 0 };
};

const sampleAction = (inst: LevelInstance, rng: Rng): Action | undefined => {
  const [rLo, rHi] = inst.bounds.radius;
  for (let i = 0; i < 50; i++) {
    const radius = round4(rng.random() < 0.5 ? inst.defaultRadius : rng.uniform(rLo, rHi));
    const x = round4(rng.uniform(Math.max(-5 + radius, inst.bounds.x[0]), Math.min(5 - radius, inst.bounds.x[1])));
    const y = round4(rng.uniform(Math.max(-5 + radius, inst.bounds.y[0]), Math.min(5 - radius, inst.bounds.y[1])));
    const p = checkPlacement(inst.scene, { x, y, radius }, inst.bounds);
    if (p.ok) return p.action;
  }
  return undefined;
};

const perturb = (inst: LevelInstance, base: Action, sigma: number, rng: Rng): Action | undefined => {
  for (let i = 0; i < 20; i++) {
    const candidate = {
      x: round4(base.x + rng.normal(0, sigma)),
      y: round4(base.y + rng.normal(0, sigma)),
      radius: round4(base.radius + rng.normal(0, sigma / 4)),
    };
    const p = checkPlacement(inst.scene, candidate, inst.bounds);
    if (p.ok) return p.action;
  }
  return undefined;
};

/** Trivial if the goal holds with no action, or with a 0.1 ball in any valid corner. */
const trivialStatus = (inst: LevelInstance, horizon: number, engine?: CreateEngine): "trivial" | "corner_trivial" | undefined => {
  if (rollout({ scene: inst.scene, goal: inst.goal }, { engine, horizon, recordContacts: false, stopWhenSettled: true }).success) {
    return "trivial";
  }
  for (const x of [-CORNER, CORNER]) {
    for (const y of [-CORNER, CORNER]) {
      const p = checkPlacement(inst.scene, { x, y, radius: CORNER_RADIUS }, inst.bounds);
      if (!p.ok) continue;
      const r = rollout({ scene: inst.scene, goal: inst.goal, action: p.action }, { engine, horizon, recordContacts: false, stopWhenSettled: true });
      if (r.success) return "corner_trivial";
    }
  }
  return undefined;
};

/** A stable number per level name, so each level's search has its own random stream. */
const levelSalt = (id: string) => [...id].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 1_000_003, 7);

/** `engine` defaults to planck, the engine of the shipped certificates. */
export const certifySeed = (levelId: string, seed: number, budget: CertifyBudget = DEFAULT_BUDGET, engine?: CreateEngine): CertifyResult => {
  const inst = createInstance(levelId, seed);
  const trivial = trivialStatus(inst, budget.trivialHorizon, engine);
  if (trivial) return { seed, status: trivial, rollouts: 5 };
  const rng = createRng(levelSalt(levelId) * 100_003 + seed);
  let rollouts = 0;
  const best: Trial[] = [];
  const consider = (t: Trial) => {
    best.push(t);
    best.sort((p, q) => q.score - p.score);
    if (best.length > 5) best.pop();
  };
  for (let i = 0; i < budget.random; i++) {
    const action = sampleAction(inst, rng);
    if (!action) continue;
    const t = tryAction(inst, action, budget.horizon, engine);
    rollouts++;
    if (t.success) return { seed, status: "certified", solution: [t.action.x, t.action.y, t.action.radius], rollouts, successStep: t.successStep };
    consider(t);
  }
  for (let i = 0; i < budget.refine && best.length > 0; i++) {
    const sigma = 0.5 * 0.1 ** (i / Math.max(1, budget.refine - 1));
    const base = best[i % best.length]!;
    const action = perturb(inst, base.action, sigma, rng);
    if (!action) continue;
    const t = tryAction(inst, action, budget.horizon, engine);
    rollouts++;
    if (t.success) return { seed, status: "certified", solution: [t.action.x, t.action.y, t.action.radius], rollouts, successStep: t.successStep };
    consider(t);
  }
  return { seed, status: "unsolved", rollouts };
};
