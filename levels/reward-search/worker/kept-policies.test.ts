import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readPolicyInput } from "../cli/judge-inputs.ts";
import { getTask } from "../tasks/index.ts";
import type { JobResult } from "../trainer/client.ts";
import { initParams, policyLayout, serializePolicy } from "../trainer/policy.ts";
import type { PoolJob } from "../trainer/pool.ts";
import { xoshiro128ss } from "../../../src/util/rng.ts";
import { isInside } from "../../../src/util/path-inside.ts";
import { keepRemotePolicies, paramsSha256 } from "./kept-policies.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "hexa-kept-policies-"));
  dirs.push(d);
  return d;
};

const task = getTask("cartpole");
const instance = task.generate(3);
const job: PoolJob = { task: task.id, instance, reward: "r", steps: 2048, seed: instance.trainSeed, evalSeeds: instance.evalSeeds, keepPolicies: true };
const hidden = 64;
const policy = (seed: number, over: { hidden?: number; obsDim?: number } = {}) => {
  const l = policyLayout({ obsDim: over.obsDim ?? 4, action: { kind: "discrete", n: 2 }, hidden: over.hidden ?? hidden, shared: false });
  return serializePolicy(l, initParams(l, xoshiro128ss(seed)), null);
};
const kept = (p: ReturnType<typeof policy>) => ({ sha256: paramsSha256(p.params), policy: p });
const result: JobResult = {
  final: { fitness: 50, perSeed: job.evalSeeds.map((seed) => ({ seed, fitness: 50 })) },
  bestCheckpoint: { fitness: 60, step: 1024 },
  components: {},
  episodeLength: [],
  fitnessCurve: [],
  steps: 2048,
  wallMs: 5,
  policy: "remote:w1",
  checkpointPolicies: [
    { step: 1024, policy: "remote:w1" },
    { step: 2048, policy: "remote:w1" },
  ],
};
const honest = () => ({
  final: kept(policy(1)),
  checkpoints: [
    { step: 1024, ...kept(policy(2)) },
    { step: 2048, ...kept(policy(3)) },
  ],
});
const keep = (raw: unknown, jobsDir = tempDir()) => keepRemotePolicies("j", job, result, raw, { worker: "w1", jobsDir, label: "it0-c0-s1" });

describe("policies a worker's training kept, carried back with its result", () => {
  it("are written by the lead into a folder of its own, under names it chooses, each a policy the judge reads", () => {
    const jobsDir = tempDir();
    const out = keep(honest(), jobsDir);
    expect(isInside(jobsDir, out.jobDir)).toBe(true);
    expect(readdirSync(out.jobDir).sort()).toEqual(["checkpoint-1024.json", "checkpoint-2048.json", "policy.json"]);
    expect(out.result.policy).toBe(join(out.jobDir, "policy.json"));
    expect(out.result.checkpointPolicies).toEqual([
      { step: 1024, policy: join(out.jobDir, "checkpoint-1024.json") },
      { step: 2048, policy: join(out.jobDir, "checkpoint-2048.json") },
    ]);
    const read = readPolicyInput(out.result.checkpointPolicies![0]!.policy);
    expect(read).toMatchObject({ task: "cartpole", instance, policy: policy(2) });
  });

  it.each([
    ["missing", undefined, /policies: missing; /],
    ["another network width", { ...honest(), final: kept(policy(1, { hidden: 65 })) }, /policies\.final\.policy\.hidden: 65, not the job's 64/],
    ["another observation size", { ...honest(), final: kept(policy(1, { obsDim: 5 })) }, /policies\.final\.policy\.obsDim: 5, not task cartpole's 4/],
    [
      "a sha256 of other bytes",
      { ...honest(), final: { ...kept(policy(1)), sha256: paramsSha256(policy(9).params) } },
      /policies\.final\.sha256: not the sha256/,
    ],
    [
      "more parameter bytes than the network has",
      { ...honest(), final: kept({ ...policy(1), params: `${policy(1).params}AAAA` }) },
      /policies\.final\.policy\.params: not the \d+ bytes of that network's parameters/,
    ],
    [
      "a checkpoint the result does not name",
      { ...honest(), checkpoints: [{ step: 512, ...kept(policy(2)) }] },
      /policies\.checkpoints: steps \[512\], not the result's/,
    ],
    ["a path of its own", { ...honest(), final: { ...kept(policy(1)), path: "/etc/passwd" } }, /policies\.final: /],
    [
      "more than 64 checkpoints",
      { ...honest(), checkpoints: Array.from({ length: 65 }, (_, i) => ({ step: i, ...kept(policy(2)) })) },
      /policies\.checkpoints: /,
    ],
  ])("are refused whole, naming the field, when %s; nothing is written", (_what, raw, message) => {
    const jobsDir = tempDir();
    expect(() => keep(raw, jobsDir)).toThrow(message);
    expect(readdirSync(jobsDir)).toEqual([]);
  });
});
