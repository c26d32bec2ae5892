import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/errors.ts";
import type { EpisodeRecord } from "../../../src/store/run-records.ts";
import { writeJsonAtomic } from "../../../src/store/jsonl.ts";
import { xoshiro128ss } from "../../../src/util/rng.ts";
import { decodeGif } from "../../../test/support/gif-decode.ts";
import { getTask, loadTask } from "../tasks/index.ts";
import { initParams, policyLayout, serializePolicy, type SerializedPolicy } from "../trainer/policy.ts";
import { rewardSearchDrawer } from "./inspect-draw.ts";
import { filmMujoco } from "./mujoco-film.ts";
import { rolloutGif } from "./rollout-gif.ts";

const dir = mkdtempSync(join(tmpdir(), "hexa-film-"));
beforeAll(async () => {
  await loadTask("hopper");
  await loadTask("ant");
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A given policy: CleanRL's initialisation at a seed, as a trainer job would save it (no obs statistics). */
const givenPolicy = (id: string, seed: number): SerializedPolicy => {
  const task = getTask(id);
  const env = task.makeEnv(task.generate(0), 1);
  const layout = policyLayout({ obsDim: env.obsDim, action: env.action, hidden: 64, shared: false });
  env.close?.();
  return serializePolicy(layout, initParams(layout, xoshiro128ss(seed)), null);
};

/** Pixels that differ between two RGBA frames. */
const changed = (a: Uint8Array, b: Uint8Array): number => {
  let n = 0;
  for (let p = 0; p < a.length; p += 4) if (a[p] !== b[p] || a[p + 1] !== b[p + 1] || a[p + 2] !== b[p + 2]) n++;
  return n;
};

describe("a MuJoCo rollout as a GIF", () => {
  it("hopper: one frame every 4 steps in real time, frames that change as the body moves", async () => {
    const gif = await rolloutGif({ task: "hopper", policy: givenPolicy("hopper", 1) });
    const decoded = decodeGif(gif.bytes);
    expect(decoded.frames.length).toBe(gif.frames);
    // Step 0, then every 4th step before the episode ended.
    expect(gif.frames).toBe(1 + Math.floor((gif.steps - 1) / 4));
    expect(gif.frames).toBeGreaterThan(5);
    const first = decoded.frames[0]!.rgba,
      last = decoded.frames.at(-1)!.rgba;
    expect(changed(first, last)).toBeGreaterThan(200);
    // Consecutive frames differ too (the body moves every 4 steps), most of them at least.
    const moving = decoded.frames.slice(1).filter((f, i) => changed(decoded.frames[i]!.rgba, f.rgba) > 0).length;
    expect(moving).toBeGreaterThan((decoded.frames.length - 1) / 2);
    // 4 steps × 0.008 s: the frames' delays add up to the episode's simulated time (hundredths, rounded), then a 1 s hold.
    const delays = decoded.frames.map((f) => f.delayCs);
    expect(delays.at(-1)).toBe(100);
    expect(Math.abs(delays.slice(0, -1).reduce((a, b) => a + b, 0) - (gif.frames - 1) * 4 * 0.8)).toBeLessThanOrEqual(1);
  }, 60_000);

  it("ant is seen from above and its torso moves under a given policy", async () => {
    const task = getTask("ant");
    const policy = givenPolicy("ant", 2);
    const { loadPolicy } = await import("../trainer/policy.ts");
    const p = loadPolicy(policy);
    const film = filmMujoco({ task, instance: task.generate(0), act: (obs) => p.act(obs, 1), seed: 1, stepsPerFrame: 10 });
    expect(film.view).toBe("top");
    expect(film.frames.length).toBeGreaterThan(2);
    const [a, b] = [film.frames[0]!, film.frames.at(-1)!];
    expect(Math.hypot(b.root[0] - a.root[0], b.root[1] - a.root[1])).toBeGreaterThan(1e-3);
    // The torso sphere and 12 leg capsules; the floor plane is not drawn.
    expect(film.geoms).toHaveLength(13);
  }, 60_000);

  it("a classic task is refused with the reason", () => {
    const task = getTask("cartpole");
    expect(() => filmMujoco({ task, instance: task.generate(0), act: () => new Int32Array(1), seed: 0, stepsPerFrame: 4 })).toThrow(ConfigError);
    expect(() => filmMujoco({ task, instance: task.generate(0), act: () => new Int32Array(1), seed: 0, stepsPerFrame: 4 })).toThrow(
      /cartpole is not a MuJoCo task; rollout pictures are drawn for the MuJoCo tasks only/,
    );
  });
});

describe("hexa inspect's reward-search drawer", () => {
  const record = (level: string, action: unknown): EpisodeRecord =>
    ({ id: `${level}-${Math.random()}`, level, seed: 0, trajectory: { action, steps: [] } }) as unknown as EpisodeRecord;

  it("animates a MuJoCo episode from its committed policy, once, and keeps the GIF beside the policy", () => {
    const job = join(dir, "job-1");
    mkdirSync(job);
    const policyPath = join(job, "policy.json");
    const task = getTask("hopper");
    writeJsonAtomic(policyPath, { task: "hopper", instance: task.generate(0), seed: 0, steps: 2048, policy: givenPolicy("hopper", 3) });
    const drawer = rewardSearchDrawer();
    const rec = record("hopper", { code: "function reward() { return 0; }", policy: policyPath });
    const still = drawer.drawEpisode(rec, { animate: false });
    expect(still).toEqual({});
    const drawn = drawer.drawEpisode(rec, { animate: true });
    expect(drawn.animation).toMatch(/^data:image\/gif;base64,/);
    const gif = join(job, "rollout.gif");
    expect(existsSync(gif)).toBe(true);
    const made = statSync(gif).mtimeMs;
    const again = drawer.animationGif!(record("hopper", { code: "x", policy: policyPath }))!;
    expect(statSync(gif).mtimeMs).toBe(made);
    expect(decodeGif(again).frames.length).toBeGreaterThan(1);
    expect(Buffer.from(again).toString("base64")).toBe(drawn.animation!.replace("data:image/gif;base64,", ""));
  }, 120_000);

  it("draws nothing (the code as text) without a policy file, for a policy since deleted, and for a classic task", () => {
    const drawer = rewardSearchDrawer();
    expect(drawer.drawEpisode(record("hopper", { code: "c" }), { animate: true })).toEqual({});
    expect(drawer.drawEpisode(record("hopper", { code: "c", policy: join(dir, "gone", "policy.json") }), { animate: true })).toEqual({});
    expect(drawer.drawEpisode(record("cartpole", { code: "c", policy: join(dir, "job-1", "policy.json") }), { animate: true })).toEqual({});
    expect(drawer.renderAction({ code: "function reward() { return 1; }" })).toContain("function reward() { return 1; }");
  });
});
