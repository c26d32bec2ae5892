import { beforeAll, describe, expect, it } from "vitest";
import { compileReward } from "../sandbox/reward-sandbox.ts";
import { ConfigError } from "../../../src/errors.ts";
import { createRng } from "../../../src/util/rng.ts";
import { getTask, listTasks, loadTask, tasks } from "./index.ts";
import { TaskInstance, type RewardTask, type StepBatch, type VecEnv } from "../task.ts";

const randomActions = (env: VecEnv, rng: ReturnType<typeof createRng>): Int32Array | Float64Array => {
  const a = env.action;
  if (a.kind === "discrete") {
    const out = new Int32Array(env.numEnvs);
    for (let i = 0; i < env.numEnvs; i++) out[i] = rng.integers(0, a.n);
    return out;
  }
  const out = new Float64Array(env.numEnvs * a.dim);
  for (let i = 0; i < out.length; i++) {
    const d = i % a.dim;
    out[i] = rng.uniform(a.low[d]!, a.high[d]!);
  }
  return out;
};

const rollout = (task: RewardTask, seed: number, numEnvs: number, steps: number): StepBatch[] => {
  const env = task.makeEnv(task.generate(seed), numEnvs);
  env.reset(seed);
  const rng = createRng(1234);
  const out: StepBatch[] = [];
  for (let t = 0; t < steps; t++) out.push(env.step(randomActions(env, rng)));
  return out;
};

/** Episode fitness totals of one env under a fixed action sequence, until `episodes` episodes ended. */
const episodes = (task: RewardTask, seed: number, act: (obs: Float64Array) => Int32Array | Float64Array, count: number) => {
  const env = task.makeEnv(task.generate(seed), 1);
  let obs = env.reset(seed);
  const results: { F: number; steps: number; terminated: boolean; last: StepBatch }[] = [];
  let F = 0;
  let steps = 0;
  while (results.length < count) {
    const b = env.step(act(obs));
    F += b.fitness[0]!;
    steps++;
    if (b.terminated[0] || b.truncated[0]) {
      results.push({ F, steps, terminated: b.terminated[0] === 1, last: b });
      F = 0;
      steps = 0;
    }
    obs = b.obs;
  }
  return results;
};

// MuJoCo tasks load their wasm module and model before their envs reset (task.prepare).
beforeAll(async () => {
  for (const id of listTasks()) await loadTask(id);
}, 120_000);

describe("registry", () => {
  it("file names equal ids and unknown ids name the known ones", () => {
    for (const [key, t] of Object.entries(tasks)) expect(t.id).toBe(key);
    expect(() => getTask("nope")).toThrow(ConfigError);
    expect(() => getTask("nope")).toThrow(/unknown reward-search task 'nope'; known: .*cartpole/);
  });
});

describe.each(listTasks())("task %s", (id) => {
  const task = getTask(id);

  it("describes itself completely", () => {
    for (const name of [...task.observation, ...task.info]) expect(task.description).toContain(name);
    for (const name of task.actionNames) expect(task.description).toContain(name);
    expect(task.fitness.solved).toBeGreaterThan(task.fitness.range[0]);
    expect(task.fitness.solved).toBeLessThanOrEqual(task.fitness.range[1]);
    expect(task.training.steps).toBeGreaterThan(0);
  });

  it("reward code parses and returns a total on a real transition", () => {
    const env = task.makeEnv(task.generate(0), 1);
    const obs = env.reset(0);
    const actions = randomActions(env, createRng(5));
    const b = env.step(actions);
    const named = (names: readonly string[], v: Float64Array) => Object.fromEntries(names.map((n, k) => [n, v[k]]));
    const info = Object.fromEntries(task.info.map((n) => [n, b.info[n]![0]]));
    const action = env.action.kind === "discrete" ? actions[0] : named(task.actionNames, actions as Float64Array);
    for (const code of [task.sparseReward, task.humanReward]) {
      if (code === null) continue;
      const fn = new Function(`${code}\nreturn reward;`)() as (...a: unknown[]) => { total: number; components: Record<string, number> };
      const r = fn(named(task.observation, obs), action, named(task.observation, b.nextObs), info);
      expect(Number.isFinite(r.total)).toBe(true);
      for (const v of Object.values(r.components)) expect(Number.isFinite(v)).toBe(true);
    }
  });

  it("reward code runs in the sandbox and agrees with a plain host evaluation", async () => {
    const n = 4,
      steps = 64;
    const env = task.makeEnv(task.generate(0), n);
    let obs = env.reset(0);
    const rng = createRng(11);
    const k = env.action.kind === "discrete" ? 1 : env.action.dim;
    const B = n * steps,
      d = env.obsDim;
    const batch = {
      n: B,
      obs: new Float64Array(B * d),
      action: new Float64Array(B * k),
      nextObs: new Float64Array(B * d),
      info: {} as Record<string, Float64Array>,
    };
    for (const name of task.info) batch.info[name] = new Float64Array(B);
    for (let t = 0; t < steps; t++) {
      const a = randomActions(env, rng);
      const b = env.step(a);
      batch.obs.set(obs, t * n * d);
      batch.nextObs.set(b.nextObs, t * n * d);
      batch.action.set(Float64Array.from(a), t * n * k);
      for (const name of task.info) batch.info[name]!.set(b.info[name]!, t * n);
      obs = b.obs;
    }
    const named = (names: readonly string[], v: Float64Array, r: number, w: number) => Object.fromEntries(names.map((nm, j) => [nm, v[r * w + j]]));
    for (const code of [task.sparseReward, task.humanReward]) {
      if (code === null) continue;
      const program = await compileReward(code, { observation: task.observation, actionNames: task.actionNames, actionKind: env.action.kind, info: task.info });
      try {
        const out = program.evaluate(batch);
        const fn = new Function(`${code}\nreturn reward;`)() as (...a: unknown[]) => { total: number };
        for (let r = 0; r < B; r++) {
          const action = env.action.kind === "discrete" ? batch.action[r] : named(task.actionNames, batch.action, r, k);
          const info = Object.fromEntries(task.info.map((nm) => [nm, batch.info[nm]![r]]));
          const want = fn(named(task.observation, batch.obs, r, d), action, named(task.observation, batch.nextObs, r, d), info).total;
          expect(out.total[r]).toBeCloseTo(want, 9);
        }
      } finally {
        program.dispose();
      }
    }
  });

  it("generate: valid instances, distinct params per seed, eval seeds disjoint from train seeds", () => {
    const a = TaskInstance.parse(task.generate(3));
    const b = TaskInstance.parse(task.generate(4));
    expect(a.task).toBe(id);
    // Tasks equal to a Gymnasium task keep its physics: no parameter varies, seeds differ by their resets.
    if (Object.keys(a.params).length > 0) expect(a.params).not.toEqual(b.params);
    expect(task.generate(3)).toEqual(a);
    const trainSeeds = new Set([0, 1, 2, 3, 4, 5, 100].map((s) => task.generate(s).trainSeed));
    for (const s of [0, 1, 2, 3, 4, 5, 100]) for (const e of task.generate(s).evalSeeds) expect(trainSeeds.has(e)).toBe(false);
  });

  it("steps with random actions: shapes, finite values, termination or truncation, auto-reset", () => {
    const n = 3;
    const env = task.makeEnv(task.generate(1), n);
    const obs0 = env.reset(1);
    expect(obs0.length).toBe(n * env.obsDim);
    expect(env.obsDim).toBe(task.observation.length);
    if (env.action.kind === "continuous") expect(env.action.dim).toBe(task.actionNames.length);
    else expect(env.action.n).toBe(task.actionNames.length);
    const batches = rollout(task, 1, n, task.maxEpisodeSteps + 5);
    let ends = 0;
    for (const b of batches) {
      expect(b.obs.length).toBe(n * env.obsDim);
      expect(b.nextObs.length).toBe(n * env.obsDim);
      expect(b.terminated.length).toBe(n);
      expect(b.truncated.length).toBe(n);
      expect(b.fitness.length).toBe(n);
      expect(Object.keys(b.info).sort()).toEqual([...task.info].sort());
      // One expect per batch: per-value expects dominate the run time on 105-float observations.
      expect([...b.obs, ...b.nextObs, ...b.fitness].every(Number.isFinite)).toBe(true);
      for (const name of task.info) expect(b.info[name]!.every(Number.isFinite), name).toBe(true);
      for (let i = 0; i < n; i++) {
        expect(b.terminated[i]! + b.truncated[i]!).toBeLessThanOrEqual(1);
        if (b.terminated[i] || b.truncated[i]) ends++;
        else for (let k = 0; k < env.obsDim; k++) expect(b.obs[i * env.obsDim + k]).toBe(b.nextObs[i * env.obsDim + k]);
      }
    }
    expect(ends).toBeGreaterThanOrEqual(n);
    // The episode never exceeds the time limit.
    const lens = episodes(task, 2, () => randomActions(env, createRng(9)).subarray(0, env.action.kind === "discrete" ? 1 : env.action.dim), 2);
    for (const e of lens) expect(e.steps).toBeLessThanOrEqual(task.maxEpisodeSteps);
  });

  it("is deterministic for a seed and differs between seeds", () => {
    const a = rollout(task, 7, 2, 60);
    const b = rollout(task, 7, 2, 60);
    expect(b).toEqual(a);
    const c = rollout(task, 8, 2, 60);
    expect(c[0]!.nextObs).not.toEqual(a[0]!.nextObs);
  });

  it("rejects bad actions", () => {
    const env = task.makeEnv(task.generate(0), 2);
    expect(() => env.step(env.action.kind === "discrete" ? new Int32Array(2) : new Float64Array(2 * env.action.dim))).toThrow(/before reset/);
    env.reset(0);
    expect(() => env.step(new Int32Array(5))).toThrow(/expected/);
  });
});

describe("physics sanity", () => {
  it("cartpole: a constant push fails within 100 steps; a PD controller balances 500 steps", () => {
    const t = getTask("cartpole");
    for (const e of episodes(t, 0, () => Int32Array.of(0), 3)) {
      expect(e.terminated).toBe(true);
      expect(e.steps).toBeLessThan(100);
      expect(e.F).toBe(e.steps - 1);
    }
    const pd = (o: Float64Array) => Int32Array.of(o[2]! + 0.5 * o[3]! + 0.05 * o[0]! + 0.1 * o[1]! > 0 ? 1 : 0);
    for (const e of episodes(t, 0, pd, 3)) {
      expect(e.terminated).toBe(false);
      expect(e.F).toBe(500);
    }
  });

  it("pendulum: without torque the energy stays nearly constant and it never comes up from hanging", () => {
    const t = getTask("pendulum");
    const inst = t.generate(0);
    const env = t.makeEnv(inst, 1);
    env.reset(0);
    const { mass: m, length: l, gravity: g } = inst.params as { mass: number; length: number; gravity: number };
    // E = ½ I ω² + m g (l/2) cos θ with I = m l²/3 (θ = 0 upright).
    const energy = (o: Float64Array) => 0.5 * ((m * l * l) / 3) * o[2]! ** 2 + m * g * (l / 2) * o[0]!;
    let b = env.step(Float64Array.of(0));
    const e0 = energy(b.nextObs);
    for (let k = 0; k < 150; k++) {
      b = env.step(Float64Array.of(0));
      expect(Math.abs(energy(b.nextObs) - e0)).toBeLessThan(0.15 * m * g * l + 0.1);
    }
    const down = episodes(t, 0, () => Float64Array.of(0), 2);
    for (const e of down) expect(e.F).toBeLessThan(-200);
  });

  it("mountain car: no force never reaches the flag; pushing with the velocity reaches it with F > 90", () => {
    const t = getTask("mountain_car_continuous");
    for (const e of episodes(t, 0, () => Float64Array.of(0), 2)) {
      expect(e.terminated).toBe(false);
      expect(e.F).toBe(0);
    }
    for (const e of episodes(t, 0, (o) => Float64Array.of(o[1]! >= 0 ? 1 : -1), 3)) {
      expect(e.terminated).toBe(true);
      expect(e.F).toBeGreaterThan(70);
    }
    for (const e of episodes(t, 0, (o) => Float64Array.of(o[1]! >= 0 ? 0.6 : -0.6), 3)) expect(e.F).toBeGreaterThan(90);
  });

  it("acrobot: no torque stays down; pumping the elbow with its own swing reaches the bar in < 200 steps", () => {
    const t = getTask("acrobot");
    for (const e of episodes(t, 0, () => Int32Array.of(1), 2)) {
      expect(e.terminated).toBe(false);
      expect(e.F).toBe(-500);
      expect(e.last.info.tip_height![0]).toBeLessThan(-1.5);
    }
    for (const e of episodes(t, 0, (o) => Int32Array.of(o[5]! > 0 ? 2 : 0), 3)) {
      expect(e.terminated).toBe(true);
      expect(e.F).toBeGreaterThan(-200);
    }
  });

  it("lander: with no thrust it crashes within 60 steps; a PD controller lands on the pad", () => {
    const t = getTask("lander");
    for (const e of episodes(t, 0, () => Int32Array.of(0), 3)) {
      expect(e.terminated).toBe(true);
      expect(e.steps).toBeLessThan(60);
      expect(e.last.info.crashed![0]).toBe(1);
      expect(e.F).toBe(0);
    }
    const pd = (o: Float64Array) => {
      const [x, y, vx, vy, a, w] = o as unknown as number[];
      const targetAngle = Math.max(-0.4, Math.min(0.4, 0.15 * x! + 0.4 * vx!));
      const angleTodo = targetAngle - a! - 0.5 * w!;
      const hoverTodo = (0.5 * Math.abs(x!) + 0.5 - y!) * 0.5 - 0.8 * vy! - 0.5;
      if (o[6] || o[7]) return Int32Array.of(0);
      if (hoverTodo > Math.abs(angleTodo) && hoverTodo > 0.05) return Int32Array.of(2);
      return Int32Array.of(angleTodo < -0.05 ? 1 : angleTodo > 0.05 ? 3 : 0);
    };
    const eps = episodes(t, 0, pd, 6);
    expect(eps.filter((e) => e.F === 1).length).toBeGreaterThanOrEqual(3);
    for (const e of eps) if (e.F === 1) expect(e.last.info.landed![0]).toBe(1);
  });

  it("held-out tasks have no hand-written reward; their F differs from the base task's", () => {
    expect(getTask("cartpole_hold_x1").humanReward).toBeNull();
    expect(getTask("lander_left_half").humanReward).toBeNull();
    // A PD controller that balances at x ≈ 0 scores 500 on cartpole and 0 on cartpole_hold_x1.
    const pd = (o: Float64Array) => Int32Array.of(o[2]! + 0.5 * o[3]! + 0.05 * o[0]! + 0.1 * o[1]! > 0 ? 1 : 0);
    expect(episodes(getTask("cartpole_hold_x1"), 0, pd, 1)[0]!.F).toBe(0);
    const toX1 = (o: Float64Array) => Int32Array.of(o[2]! + 0.5 * o[3]! + 0.1 * (o[0]! - 1) + 0.3 * o[1]! > 0 ? 1 : 0);
    expect(episodes(getTask("cartpole_hold_x1"), 0, toX1, 1)[0]!.F).toBeGreaterThan(300);
  });

  it("walker: without torque it collapses in place and never gains a metre", () => {
    const t = getTask("walker");
    for (const e of episodes(t, 0, () => new Float64Array(4), 2)) {
      expect(Math.abs(e.F)).toBeLessThan(1);
      expect(e.last.nextObs[0]).toBeLessThan(1.0);
    }
  });
});
