import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { xoshiro128ss } from "../../../src/util/rng.ts";
import { getTask, loadTask } from "../tasks/index.ts";
import { evaluateGreedy } from "../trainer/evaluate.ts";
import { initParams, policyLayout, serializePolicy } from "../trainer/policy.ts";
import { recordPolicyEpisodes } from "./record-policy.ts";
import { readTrajectoryFile } from "./trajectory-file.ts";

const dir = mkdtempSync(join(tmpdir(), "hexa-record-policy-"));
const hopper = getTask("hopper");
const instance = hopper.generate(2);
const layout = policyLayout({ obsDim: 11, action: { kind: "continuous", dim: 3, low: [-1, -1, -1], high: [1, 1, 1] }, hidden: 64, shared: false });
const theta = initParams(layout, xoshiro128ss(7));

beforeAll(async () => {
  await loadTask("hopper");
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A training job's folder with its policy.json, as trainer/main.ts writes it. */
const job = (name: string, policy: ReturnType<typeof serializePolicy>): string => {
  const jobDir = join(dir, name);
  mkdirSync(jobDir);
  const path = join(jobDir, "policy.json");
  writeFileSync(path, JSON.stringify({ task: "hopper", instance, seed: 2, steps: 0, policy }));
  return path;
};

describe("recording a saved policy's evaluation episodes", () => {
  it("writes trajectory-<seed>.bin beside policy.json: the trainer's greedy episode on that seed", async () => {
    const policyPath = job("job-1", serializePolicy(layout, theta, null));
    const seed = instance.evalSeeds[0]!;
    const done = await recordPolicyEpisodes(policyPath, [seed]);
    expect(done).toEqual([{ seed, path: join(dir, "job-1", `trajectory-${seed}.bin`), steps: expect.any(Number) }]);
    expect(readdirSync(join(dir, "job-1")).sort()).toEqual(["policy.json", `trajectory-${seed}.bin`]);
    const r = readTrajectoryFile(done[0]!.path);
    const fitness = r.header.terms.indexOf("fitness");
    let f = 0;
    for (let t = 0; t < r.steps; t++) f += r.columns.terms[t * r.header.terms.length + fitness]!;
    const [evaluated] = evaluateGreedy(hopper, instance, layout, theta, null, [seed]);
    expect(f).toBe(evaluated);
    expect(r.steps).toBe(done[0]!.steps);
  });

  it("records the instance's evaluation seeds by default, and refuses a policy of another task", async () => {
    const done = await recordPolicyEpisodes(job("job-2", serializePolicy(layout, theta, null)));
    expect(done.map((d) => d.seed)).toEqual(instance.evalSeeds);
    const other = policyLayout({ ...layout, obsDim: 4 });
    await expect(recordPolicyEpisodes(job("job-3", serializePolicy(other, initParams(other, xoshiro128ss(1)), null)))).rejects.toThrow(
      /policy\.json: the policy reads 4 observation values and gives 3 outputs but hopper has 11 and 3; give a policy trained on hopper/,
    );
    await expect(recordPolicyEpisodes(join(dir, "job-2", "policy.json"), [1, 1])).rejects.toThrow(/seeds: a seed is given twice/);
  });
});
