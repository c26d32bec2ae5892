import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_ENTRY_BYTES, readCacheEntry, TrainCache, trainCacheKey } from "./cache.ts";
import type { JobOutcome, TrainJob } from "./client.ts";

const code = `// alive bonus
function reward(obs, action, nextObs, info) {
  /* one component */
  const alive = 1;   // always
  return { total: alive, components: { alive } };
}`;
const job = (over: Partial<TrainJob> = {}): TrainJob => ({
  task: "cartpole",
  instance: 3,
  reward: code,
  steps: 2048,
  seed: 1,
  evalSeeds: [2, 3, 4],
  jobDir: "/tmp/x",
  ...over,
});
const trainer = { name: "fake", version: "1" };
const result: JobOutcome = {
  kind: "result",
  result: {
    final: { fitness: 10, perSeed: [2, 3, 4].map((seed) => ({ seed, fitness: 10 })) },
    bestCheckpoint: { fitness: 12, step: 1024 },
    components: { alive: [{ step: 1024, mean: 1, min: 1, max: 1 }] },
    episodeLength: [{ step: 1024, mean: 10 }],
    fitnessCurve: [{ step: 1024, fitness: 10 }],
    steps: 2048,
    wallMs: 5,
    policy: "/tmp/x/policy.json",
  },
};

describe("trainCacheKey", () => {
  it("depends on the exact code, task, instance, seeds, steps, ppo and trainer, not on the job's directory", () => {
    const k = trainCacheKey(job(), trainer);
    expect(trainCacheKey(job({ jobDir: "/elsewhere" }), trainer)).toBe(k);
    for (const other of [
      job({ reward: code.replace(/\/\/.*$/gm, "") }),
      job({ task: "pendulum" }),
      job({ instance: 4 }),
      job({ seed: 9 }),
      job({ evalSeeds: [5, 6, 7] }),
      job({ steps: 4096 }),
      job({ ppo: { numEnvs: 4 } }),
    ])
      expect(trainCacheKey(other, trainer)).not.toBe(k);
    expect(trainCacheKey(job(), { name: "fake", version: "2" })).not.toBe(k);
    expect(trainCacheKey(job({ ppo: { a: 1, b: 2 } }), trainer)).toBe(trainCacheKey(job({ ppo: { b: 2, a: 1 } }), trainer));
  });
});

describe("TrainCache", () => {
  it("stores results, answers the same job, and treats a damaged file as a miss", () => {
    const dir = mkdtempSync(join(tmpdir(), "hexa-cache-"));
    const cache = new TrainCache(dir);
    expect(cache.get(job(), trainer)).toBeUndefined();
    expect(cache.put(job(), trainer, result)).toBe(true);
    expect(cache.get(job({ jobDir: "/tmp/y" }), trainer)).toEqual(result);
    expect(cache.get(job({ reward: `${code}\n` }), trainer)).toBeUndefined();
    expect(cache.get(job({ seed: 2 }), trainer)).toBeUndefined();
    const [file] = readdirSync(dir);
    expect(readdirSync(dir)).toHaveLength(1); // no temporary file left behind
    writeFileSync(join(dir, file!), "{ half a");
    expect(cache.get(job(), trainer)).toBeUndefined();
  });

  it("keeps reward-code faults, and never cancels or budget stops", () => {
    const cache = new TrainCache(mkdtempSync(join(tmpdir(), "hexa-cache-")));
    const fault: JobOutcome = {
      kind: "error",
      error: { kind: "reward_code", message: "line 2: boom", fault: { kind: "exception", message: "boom", line: 2 } },
    };
    expect(cache.put(job(), trainer, fault)).toBe(true);
    expect(cache.get(job(), trainer)).toEqual(fault);
    expect(cache.get(job({ reward: `// moved down a line\n${code}` }), trainer)).toBeUndefined();
    expect(cache.put(job({ seed: 5 }), trainer, { kind: "error", error: { kind: "cancelled", message: "x" } })).toBe(false);
    expect(cache.put(job({ seed: 5 }), trainer, { kind: "error", error: { kind: "budget_exceeded", message: "x" } })).toBe(false);
    expect(cache.get(job({ seed: 5 }), trainer)).toBeUndefined();
  });
});

describe("a cache entry's loss summary", () => {
  const losses = { updates: 4, policyLoss: -0.01, valueLoss: 3.5, entropy: 0.68, approxKl: 0.002, clipFrac: 0.05, explainedVariance: -0.2 };
  const stored = (outcome: JobOutcome) => {
    const cache = new TrainCache(mkdtempSync(join(tmpdir(), "hexa-cache-")));
    cache.put(job(), trainer, outcome);
    return { cache, path: cache.entryPath(job(), trainer) };
  };
  const rewrite = (path: string, edit: (entry: Record<string, any>) => void) => {
    const entry = JSON.parse(readFileSync(path, "utf8"));
    edit(entry);
    writeFileSync(path, JSON.stringify(entry));
  };

  it("is kept with the result and read back as stored, a null one (no losses reported) too", () => {
    for (const l of [losses, null]) {
      const { cache } = stored({ ...result, losses: l } as JobOutcome);
      expect(cache.get(job(), trainer)).toEqual({ ...result, losses: l });
    }
  });

  it("is absent from an entry written before entries kept it: the entry still reads, without one", () => {
    const { cache, path } = stored(result);
    const hit = cache.get(job(), trainer);
    expect(hit).toEqual(result);
    expect(hit && "losses" in hit).toBe(false);
    expect(readCacheEntry(path)).toMatchObject({ entry: { outcome: { kind: "result" } } });
  });

  it("that is not a summary makes the entry a miss, and readCacheEntry names the field", () => {
    const bad: [string, (l: Record<string, unknown>) => void][] = [
      ["outcome.losses.entropy", (l) => void (l.entropy = "high")],
      ["outcome.losses.updates", (l) => void (l.updates = 0)],
      ["outcome.losses.updates", (l) => void (l.updates = 1e12)],
      ["outcome.losses", (l) => void (l.extra = 1)],
    ];
    for (const [field, edit] of bad) {
      const { cache, path } = stored({ ...result, losses } as JobOutcome);
      rewrite(path, (e) => edit(e.outcome.losses));
      expect(cache.get(job(), trainer), field).toBeUndefined();
      const read = readCacheEntry(path);
      expect("problem" in read && read.problem, field).toMatch(new RegExp(`^${field.replace(/\./g, "\\.")}: `));
    }
  });

  it("an entry over the size bound is not parsed: a miss, named as too large", () => {
    const { cache, path } = stored({ ...result, losses } as JobOutcome);
    rewrite(path, (e) => void (e.padding = "x".repeat(MAX_ENTRY_BYTES)));
    expect(statSync(path).size).toBeGreaterThan(MAX_ENTRY_BYTES);
    expect(cache.get(job(), trainer)).toBeUndefined();
    expect(readCacheEntry(path)).toEqual({ problem: expect.stringMatching(/^\(the file\): \d+ bytes, over the \d+ an entry may hold$/) });
  });
});
