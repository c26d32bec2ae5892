import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { TaskEnv, ToolResult } from "../../src/family/task-env.ts";
import { closePhysicsHost, PhysicsWorkerError, PhysicsHost, runHeuristicInWorker, type PhysicsSession } from "./physics-host.ts";
import { openInterphyreEnv, type InterphyreEnvRequest } from "./task-env.ts";
import { createInstance } from "./instance.ts";
import { createRng } from "../../src/util/rng.ts";
import { readCertified } from "./certified-seeds.ts";
import { runHeuristicEpisode, type HeuristicHint } from "./heuristic/agent.ts";
import type { Trajectory } from "../../src/store/trajectory.ts";
import type { EpisodeRecord } from "../../src/store/run-records.ts";
import { rolloutAnimation } from "./pictures/rollout-animation.ts";
import { interphyreDrawer } from "./pictures/inspect-draw.ts";

const host = new PhysicsHost({ workers: 2 });
afterAll(() => host.close());

const request = (level: string, seed: number): InterphyreEnvRequest => ({ level, seed, horizon: 2000, toolSet: "extended", maxTurns: 25 });
const solution = (level: string, i: number) => {
  const e = readCertified(level)!.seeds[i]!;
  const [x, y, radius] = e.solution;
  return { seed: e.seed, p: { x, y, radius } };
};

type Call = [string, unknown];
/** Every tool once (the snapshot before intervene), plus each way a call can fail: at validation and inside a tool. */
const script = (p: { x: number; y: number; radius: number }, goal: string): Call[] => [
  ["get_level_state", {}],
  ["describe_scene_geometry", {}],
  ["check_placement", p],
  ["simulate_action", { ...p, x: -p.x * 0.9 }],
  ["get_contact_log", {}],
  ["simulate_partial", { ...p, stop_step: 300 }],
  ["trace_objects", { ...p, objects: [goal, "red_ball"], steps: 600, every: 60 }],
  ["predict_first_contact", p],
  ["snapshot", { ...p, at_step: 200 }],
  ["intervene", { snapshot_id: "snap_1", interventions: [{ kind: "impulse", object: goal, ix: 0.5, iy: 1 }], steps: 300 }],
  ["snapshot", { ...p, trigger: { kind: "success" } }],
  ["get_contact_log", { limit: 5 }],
  ["simulate_action", p],
  ["finish", p],
  // Failures: unknown tool, string coordinates (the hazard), a placement off the world, a step out of range,
  // an unknown snapshot, extra keys (stripped by the schema).
  ["teleport", { x: 1 }],
  ["simulate_action", { x: String(p.x), y: String(p.y), radius: p.radius }],
  ["simulate_action", { x: 9, y: 0, radius: 0.5 }],
  ["simulate_partial", { ...p, stop_step: 99_999 }],
  ["intervene", { snapshot_id: "snap_9", interventions: [], steps: 10 }],
  ["check_placement", { ...p, note: "extra" }],
  ["get_level_state", undefined],
];

/** The calls the tools' schemas accept, run as the agent's tool node runs them: parsed once, then `parsed.call`. */
const playParsed = async (env: TaskEnv, calls: Call[]): Promise<ToolResult[]> => {
  const out: ToolResult[] = [];
  for (const [name, args] of calls) {
    const parsed = env.parsed?.inputs[name]?.safeParse(args);
    if (parsed?.success) out.push(await env.parsed!.call(name, parsed.data));
  }
  await env.close();
  return out;
};

/** An env's fields beside its calls: the parsed path as the names of its schemas (its functions differ by env). */
const shape = (e: TaskEnv) => ({ ...e, call: 0, close: 0, parsed: Object.keys(e.parsed?.inputs ?? {}) });

const play = async (env: TaskEnv, calls: Call[]): Promise<ToolResult[]> => {
  const out: ToolResult[] = [];
  for (const [name, args] of calls) out.push(await env.call(name, args));
  await env.close();
  return out;
};

describe("tools in the physics worker", () => {
  it.each([
    ["catapult", 0],
    ["basket_case", 1],
  ])("give exactly the in-process results for every tool (%s, certified seed #%i)", async (level, i) => {
    const { seed, p } = solution(level, i);
    const calls = script(p, createInstance(level, seed).goal[0]);
    const inProcess = await play(await openInterphyreEnv(request(level, seed), { physics: "in-process" }), calls);
    const worker = await openInterphyreEnv(request(level, seed), { physics: host });
    const inProcessEnv = await openInterphyreEnv(request(level, seed), { physics: "in-process" });
    expect(shape(worker)).toStrictEqual(shape(inProcessEnv));
    const viaWorker = await play(worker, calls);
    expect(viaWorker).toStrictEqual(inProcess);
    // The parsed path (the agent's tool node parsed the call): the worker runs it without parsing again, same results.
    const parsedInProcess = await playParsed(inProcessEnv, calls);
    expect(parsedInProcess.length).toBeGreaterThanOrEqual(8);
    expect(await playParsed(await openInterphyreEnv(request(level, seed), { physics: host }), calls)).toStrictEqual(parsedInProcess);
    // The script reaches every outcome: a success that ends the episode, a finish, tool and argument errors.
    expect(new Set(viaWorker.flatMap((r) => (r.ends ? [r.ends.reason] : [])))).toEqual(new Set(["success", "finish"]));
    expect(viaWorker.filter((r) => !r.ok).length).toBeGreaterThanOrEqual(5);
  });

  it("run on the configured engine: box2d-wasm in the worker gives its in-process results, not planck's", async () => {
    const { seed, p } = solution("catapult", 0);
    const calls = script(p, createInstance("catapult", seed).goal[0]);
    const wasm = { ...request("catapult", seed), engine: "box2d-wasm" as const };
    const inProcess = await play(await openInterphyreEnv(wasm, { physics: "in-process" }), calls);
    const viaWorker = await play(await openInterphyreEnv(wasm, { physics: host }), calls);
    expect(viaWorker).toStrictEqual(inProcess);
    const planck = await play(await openInterphyreEnv(request("catapult", seed), { physics: "in-process" }), calls);
    expect(viaWorker[3]!.observation).not.toBe(planck[3]!.observation);
  });

  it("posts only schema-validated data: string coordinates and extra keys never reach the worker", async () => {
    const posted: unknown[] = [];
    class Spy extends PhysicsHost {
      override openSession(r: Parameters<PhysicsHost["openSession"]>[0]): PhysicsSession {
        const s = super.openSession(r);
        return { call: (name, args) => (posted.push(args), s.call(name, args)), close: () => s.close() };
      }
    }
    const spy = new Spy({ workers: 1 });
    const { seed, p } = solution("catapult", 0);
    const env = await openInterphyreEnv(request("catapult", seed), { physics: spy });
    const bad = await env.call("check_placement", { x: "1", y: "2", radius: p.radius });
    expect(bad.ok).toBe(false);
    expect(bad.observation).toMatch(/^ERROR: invalid arguments for check_placement: x: .*expected number/);
    await env.call("check_placement", { ...p, note: "extra" });
    expect(posted).toStrictEqual([p]);
    await env.close();
    await spy.close();
  });

  it("keeps concurrent sessions apart, on one worker and on two", async () => {
    const a = solution("catapult", 2);
    const b = solution("pass_the_parcel", 3);
    const callsOf = (p: typeof a.p): Call[] => [
      ["snapshot", { ...p, at_step: 100 }],
      ["simulate_action", { ...p, y: p.y + 0.05 }],
      ["get_contact_log", {}],
      ["intervene", { snapshot_id: "snap_1", interventions: [], steps: 120 }],
      ["snapshot", { ...p, at_step: 50 }],
    ];
    const expected = [
      await play(await openInterphyreEnv(request("catapult", a.seed), { physics: "in-process" }), callsOf(a.p)),
      await play(await openInterphyreEnv(request("pass_the_parcel", b.seed), { physics: "in-process" }), callsOf(b.p)),
    ];
    for (const workers of [1, 2]) {
      const pool = new PhysicsHost({ workers });
      const envs = [
        await openInterphyreEnv(request("catapult", a.seed), { physics: pool }),
        await openInterphyreEnv(request("pass_the_parcel", b.seed), { physics: pool }),
      ];
      expect(pool.workers).toBe(workers);
      // Both episodes' calls in flight at once, interleaved in the worker's queue.
      const got = await Promise.all([play(envs[0]!, callsOf(a.p)), play(envs[1]!, callsOf(b.p))]);
      expect(got).toStrictEqual(expected);
      await pool.close();
    }
  });

  it("rejects the calls of a crashed worker with a clear error, and the next session gets a fresh worker", async () => {
    const pool = new PhysicsHost({ workers: 1 });
    const { seed, p } = solution("catapult", 0);
    const expected = await play(await openInterphyreEnv(request("catapult", seed), { physics: "in-process" }), [["simulate_action", p]]);
    for (const [how, why] of [
      ["exit", /the physics worker exited \(code 3\) during simulate_action on catapult seed \d+; that call did not finish/],
      ["throw", /the physics worker died \(Error: physics worker crash requested by a test\) during simulate_action on catapult/],
    ] as const) {
      const env = await openInterphyreEnv(request("catapult", seed), { physics: pool });
      expect((await env.call("get_level_state", {})).ok).toBe(true);
      pool.crashForTest(how);
      const pending = env.call("simulate_action", p);
      await expect(pending).rejects.toThrow(PhysicsWorkerError);
      await expect(pending).rejects.toThrow(why);
      // The session died with its worker: later calls say so at once.
      await expect(env.call("get_level_state", {})).rejects.toThrow(/session for catapult seed \d+ was lost with it/);
      await env.close();
      const fresh = await openInterphyreEnv(request("catapult", seed), { physics: pool });
      expect(await play(fresh, [["simulate_action", p]])).toStrictEqual(expected);
    }
    await pool.close();
  });

  it("never keeps the process alive: a child that opens an env, calls a tool and returns exits by itself", () => {
    const taskEnv = fileURLToPath(new URL("./task-env.ts", import.meta.url));
    // As bin/hexa.js starts hexa: tsx registered from the main thread, no close().
    const code = `import { register } from "tsx/esm/api"; register();
      const { openInterphyreEnv } = await import(${JSON.stringify(taskEnv)});
      const env = await openInterphyreEnv({ level: "catapult", seed: 1, horizon: 2000, toolSet: "paper", maxTurns: 25 });
      const r = await env.call("simulate_action", { x: -0.0693, y: -0.6776, radius: 1.32 });
      console.log(r.ends.reason);`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8", timeout: 60_000 });
    expect(child.stderr).toBe("");
    expect(child.signal).toBeNull();
    expect(child.status).toBe(0);
    expect(child.stdout.trim()).toBe("success");
  });
});

describe("runHeuristicInWorker", () => {
  const ticking = () => {
    let t = 0;
    return () => (t += 1);
  };
  const hints: HeuristicHint[] = [{ kind: "region", relativeTo: "world", dx: [-2, 2], dy: [0, 3], weight: 1 }];
  const inProcess = (level: string, seed: number, rngSeed: number, h: HeuristicHint[], now = ticking()) =>
    runHeuristicEpisode({ instance: createInstance(level, seed), maxTurns: 25, horizon: 2000, rng: createRng(rngSeed), now, hints: h });
  const untimed = (t: Trajectory) => ({ ...t, wallMs: 0, steps: t.steps.map((s) => ({ ...s, ms: 0 })) });

  it.each([
    ["catapult", 0, []],
    ["pass_the_parcel", 1, []],
    ["catapult", 4, hints],
  ] as const)("plays the in-process episode bit for bit (%s, certified seed #%i)", async (level, i, h) => {
    const { seed } = solution(level, i);
    const rngSeed = seed + 7 * 1_000_003;
    const request = { level, seed, maxTurns: 25, horizon: 2000, rngSeed, hints: [...h] };
    // With a counter clock in both, even the timing fields agree.
    expect(await runHeuristicInWorker({ ...request, clockStepMs: 1 }, host)).toStrictEqual(inProcess(level, seed, rngSeed, [...h]));
    // With the wall clock, all but the timing fields.
    if (i > 0) return;
    const wall = await runHeuristicInWorker(request, host);
    expect(wall.wallMs).toBeGreaterThan(0);
    expect(untimed(wall)).toStrictEqual(untimed(inProcess(level, seed, rngSeed, [...h], () => performance.now())));
  });

  it("runs concurrent episodes on the pool, each as alone", async () => {
    const seeds = [0, 1].map((i) => solution("catapult", i).seed);
    const got = await Promise.all(
      seeds.map((seed) => runHeuristicInWorker({ level: "catapult", seed, maxTurns: 25, horizon: 2000, rngSeed: seed, hints: [], clockStepMs: 1 }, host)),
    );
    expect(got).toStrictEqual(seeds.map((seed) => inProcess("catapult", seed, seed, [])));
  });
});

describe("whole jobs on the pool", () => {
  const entries = (n: number) =>
    readCertified("catapult")!
      .seeds.slice(0, n)
      .map((e) => ({ seed: e.seed, scene: createInstance("catapult", e.seed).scene, solution: e.solution }));

  it("go to the first worker free of jobs: short jobs never wait behind a long one while the other worker is idle", async () => {
    const pool = new PhysicsHost({ workers: 2 });
    // Both workers started first: a worker still starting (seconds under load) is not what is measured here.
    await Promise.all([
      pool.checkScenes({ level: "catapult", entries: entries(1), steps: 10 }),
      pool.checkScenes({ level: "catapult", entries: entries(1), steps: 10 }),
    ]);
    expect(pool.workers).toBe(2);
    const finished: string[] = [];
    const run = (name: string, n: number, steps: number) =>
      pool.checkScenes({ level: "catapult", entries: entries(n), steps }).then((ok) => {
        finished.push(name);
        return ok;
      });
    // Sent together: placed when sent, the second short job would have queued behind the long one.
    const [long, ...shorts] = await Promise.all([run("long", 60, 2000), run("short1", 1, 50), run("short2", 1, 50), run("short3", 1, 50)]);
    expect(finished.at(-1)).toBe("long");
    expect(long).toHaveLength(60);
    expect(shorts.map((s) => s.length)).toEqual([1, 1, 1]);
    expect(pool.workers).toBe(2);
    await pool.close();
  });

  it("still queued when the host closes: refused with a clear error", async () => {
    const pool = new PhysicsHost({ workers: 1 });
    const running = pool.checkScenes({ level: "catapult", entries: entries(20), steps: 2000 });
    const queued = pool.checkScenes({ level: "catapult", entries: entries(1), steps: 50 });
    const settled = Promise.allSettled([running, queued]);
    await pool.close();
    const [first, second] = await settled;
    expect(first.status === "rejected" && first.reason).toBeInstanceOf(PhysicsWorkerError);
    expect(second.status === "rejected" && String(second.reason)).toMatch(/physics host was closed; the scene check of 1 catapult scenes did not start/);
  });
});

describe("rollout animations", () => {
  it("made in a worker are the in-process GIF's bytes", async () => {
    const { seed, p } = solution("catapult", 0);
    const r = { level: "catapult", seed, action: p };
    const gif = await host.animate(r);
    expect(gif.byteLength).toBeGreaterThan(1000);
    expect(Buffer.from(gif).equals(Buffer.from(rolloutAnimation(r)))).toBe(true);
  });

  it("prepared by the drawer in the workers are what it draws in-process, and what it embeds without drawing again", async () => {
    const { seed, p } = solution("pass_the_parcel", 0);
    const rec = { id: `stream/pass_the_parcel/r1/s${seed}`, level: "pass_the_parcel", seed, trajectory: { action: p } } as unknown as EpisodeRecord;
    const prepared = interphyreDrawer();
    await prepared.prepareAnimations!([rec]);
    await closePhysicsHost();
    const inProcess = interphyreDrawer().drawEpisode(rec, { animate: true }).animation;
    expect(inProcess).toMatch(/^data:image\/gif;base64,/);
    // Memoised by episode id: had the worker not made it, this would draw the other action's rollout here.
    const moved = { ...rec, trajectory: { action: { ...p, x: p.x - 1 } } } as unknown as EpisodeRecord;
    expect(prepared.drawEpisode(moved, { animate: true }).animation).toBe(inProcess);
  });
});
