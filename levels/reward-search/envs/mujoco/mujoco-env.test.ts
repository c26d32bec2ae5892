import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../../../src/errors.ts";
import { checkReward } from "../../sandbox/reward-check.ts";
import { compileReward, RewardCodeError } from "../../sandbox/reward-sandbox.ts";
import { getTask, loadTask } from "../../tasks/index.ts";
import { sampleTransitions } from "../../tools/check_reward.ts";
import type { MjData } from "mujoco-js";
import type { MujocoVecEnv } from "./mujoco-env.ts";
import { loadModel } from "./runtime.ts";

const dir = mkdtempSync(join(tmpdir(), "hexa-mujoco-"));
beforeAll(async () => {
  await loadTask("hopper");
  await loadTask("ant");
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("model files", () => {
  it("a file MuJoCo cannot parse is a ConfigError naming the file and MuJoCo's message", async () => {
    const bad = join(dir, "broken.xml");
    writeFileSync(bad, "<mujoco><worldbody><body><geom type='sphere' size='0.1'/></body></worldbody>");
    const e = await loadModel(bad).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as Error).message).toMatch(new RegExp(`^${bad}: MuJoCo could not load the model \\(.*XML parse error.*\\); fix the XML`));
  });

  it("an unknown element is a ConfigError naming the file", async () => {
    const bad = join(dir, "unknown.xml");
    writeFileSync(bad, "<mujoco><worldbody><body><geom type='nope' size='0.1'/></body></worldbody></mujoco>");
    await expect(loadModel(bad)).rejects.toThrow(new RegExp(`${bad}: MuJoCo could not load the model \\(.+\\)`));
  });

  it("a missing file is a ConfigError naming it", async () => {
    await expect(loadModel(join(dir, "missing.xml"))).rejects.toThrow(/missing\.xml: cannot read the MuJoCo model file \(ENOENT/);
  });
});

const hopper = getTask("hopper");

describe("MuJoCo envs", () => {
  const act = (k: number) => Float64Array.of(Math.sin(k), Math.cos(0.7 * k), Math.sin(1.3 * k + 1));

  it("are deterministic per seed: two envs stepped in turn with the same actions give identical observations", () => {
    const a = hopper.makeEnv(hopper.generate(0), 2),
      b = hopper.makeEnv(hopper.generate(0), 2);
    expect(b.reset(5)).toEqual(a.reset(5));
    for (let k = 0; k < 300; k++) {
      const x = a.step(Float64Array.from([...act(k), ...act(k + 1)])),
        y = b.step(Float64Array.from([...act(k), ...act(k + 1)]));
      expect(y.nextObs).toEqual(x.nextObs);
      expect(y.terminated).toEqual(x.terminated);
    }
    const c = hopper.makeEnv(hopper.generate(0), 2);
    expect(c.reset(6)).not.toEqual(a.reset(5));
    for (const e of [a, b, c]) e.close!();
  });

  it("free their MjData: 1,000 creations free every env's data and do not grow the wasm heap", () => {
    const inst = hopper.generate(0);
    /** One env made, stepped and closed; the MjData it held. */
    const cycle = (k: number): MjData[] => {
      const e = hopper.makeEnv(inst, 2) as MujocoVecEnv;
      e.reset(k);
      e.step(Float64Array.from([...act(k), ...act(k)]));
      const datas = [e.data(0), e.data(1)];
      e.close();
      return datas;
    };
    const probe = hopper.makeEnv(inst, 1) as MujocoVecEnv;
    probe.reset(0);
    // The heap as other test files of this thread left it may need room once for an env beside the probe; after a
    // few cycles, what one cycle allocates fits in what the one before it freed.
    for (let k = 0; k < 10; k++) cycle(k);
    // A live view into the wasm heap: any heap growth detaches its buffer and empties it.
    const view = probe.data(0).qpos as Float64Array;
    for (let k = 0; k < 1000; k++) expect(cycle(k).filter((d) => !d.isDeleted())).toEqual([]);
    expect(view.length).toBe(6);
    const kept = probe.data(0);
    expect(kept.isDeleted()).toBe(false);
    probe.close();
    expect(kept.isDeleted()).toBe(true);
  });

  it("refuse to step or reset after close", () => {
    const e = hopper.makeEnv(hopper.generate(0), 1);
    e.reset(0);
    e.close!();
    expect(() => e.step(act(0))).toThrow(/step after close\(\); make a new env/);
    expect(() => e.reset(0)).toThrow(/reset after close\(\); make a new env/);
  });
});

describe("a reward returning NaN on a MuJoCo observation", () => {
  const code = `function reward(obs, action, nextObs, info) {
  const height = Math.sqrt(nextObs.torso_z - 1.3);
  return { total: height, components: { height } };
}`;

  it("fails in the sandbox (the trainer's path) with a message naming the component, the inputs and the fix", async () => {
    const ant = getTask("ant");
    const antCode = code.replace("torso_z - 1.3", "torso_z - 5");
    const layout = { observation: ant.observation, actionNames: ant.actionNames, actionKind: "continuous" as const, info: ant.info };
    const program = await compileReward(antCode, layout);
    try {
      const [batch] = sampleTransitions(ant, ant.generate(0), 16);
      const e = (() => {
        try {
          program.evaluate(batch!);
        } catch (x) {
          return x;
        }
      })();
      expect(e).toBeInstanceOf(RewardCodeError);
      expect((e as RewardCodeError).fault.kind).toBe("nan");
      expect((e as Error).message).toMatch(/^reward component "height" is NaN for env 0 of 16 \(inputs: obs\.torso_z=[\d.]+, .*\); guard .*Math\.sqrt/);
    } finally {
      program.dispose();
    }
  });

  it("is reported by check_reward's check with the NaN component", async () => {
    const layout = { observation: hopper.observation, actionNames: hopper.actionNames, actionKind: "continuous" as const, info: hopper.info };
    const check = await checkReward(code, layout, sampleTransitions(hopper, hopper.generate(0), 64));
    expect(check.faults.map((f) => f.kind)).toContain("nan");
    expect(check.report).toMatch(/NaN/);
  });
});
