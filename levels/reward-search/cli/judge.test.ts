import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { xoshiro128ss } from "../../../src/util/rng.ts";
import { parseCriteria } from "../judging/criteria.ts";
import { makeJudge } from "../judging/judge.ts";
import { getTask, loadTask } from "../tasks/index.ts";
import { initParams, policyLayout, serializePolicy } from "../trainer/policy.ts";
import { JudgmentFile } from "./judge-file.ts";
import { FITNESS_LABEL, fitnessScore } from "./judge-fitness.ts";
import { judgedSeeds, judgePolicy, pickEpisodes } from "./judge-run.ts";

const dir = mkdtempSync(join(tmpdir(), "hexa-judge-cmd-"));
const hopper = getTask("hopper");
const instance = hopper.generate(0);
const layout = policyLayout({ obsDim: 11, action: { kind: "continuous", dim: 3, low: [-1, -1, -1], high: [1, 1, 1] }, hidden: 16, shared: false });
const EPISODES = 5;

/** A training job's folder with an untrained policy.json, as trainer/main.ts writes it. */
const job = (name: string, policy: unknown = serializePolicy(layout, initParams(layout, xoshiro128ss(11)), null)): string => {
  const jobDir = join(dir, name);
  mkdirSync(jobDir);
  const path = join(jobDir, "policy.json");
  writeFileSync(path, JSON.stringify({ task: "hopper", instance, seed: 0, steps: 0, policy }));
  return path;
};

/** A judge whose score falls as F rises: 1 / (1 + e^(10 F)), F the sum of the recorded fitness term. */
const INVERSE_CODE = `
function judge(traj) {
  const f = traj.term("fitness").reduce((a, b) => a + b, 0);
  const s = 1 / (1 + Math.exp(10 * f));
  return [{ id: "1", value: f, score: s, passed: s >= 0.9, note: "F " + f.toFixed(4) }];
}`;
const inverseJudge = makeJudge("inverse_f", {
  intent: "move as little forward as possible",
  tree: parseCriteria({ order: "independent", children: [{ id: "1", name: "stays back", metric: "F", threshold: "F < -0.3", partial: "logistic" }] }),
  code: INVERSE_CODE,
});

const writeJson = (name: string, value: unknown): string => {
  const path = join(dir, name);
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
  return path;
};

beforeAll(async () => {
  await loadTask("hopper");
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("hexa judge without a model: the fitness judge", () => {
  it("records N evaluation episodes into judgment/, scores F against solved, picks by F, writes a valid judgment.json", async () => {
    const policy = job("fit");
    const out = await judgePolicy({ task: "hopper", policy, episodes: EPISODES });
    expect(out.dir).toBe(join(dir, "fit", "judgment"));
    const file = JudgmentFile.parse(JSON.parse(readFileSync(join(out.dir, "judgment.json"), "utf8")));
    expect(file.judge).toEqual({ kind: "fitness", label: FITNESS_LABEL, solved: 10, base: 0 });
    expect(file.episodes.map((e) => e.seed)).toEqual(judgedSeeds({ episodes: EPISODES }, instance));
    for (const e of file.episodes) {
      expect(e.score).toBe(fitnessScore(e.fitness, hopper.fitness));
      expect(existsSync(join(out.dir, e.trajectory))).toBe(true);
    }
    expect(new Set(file.episodes.map((e) => e.fitness)).size).toBe(EPISODES);
    const byF = [...file.episodes].sort((a, b) => a.fitness - b.fitness);
    expect(file.picks.map((p) => [p.pick, p.seed])).toEqual([
      ["p10", byF[0]!.seed],
      ["median", byF[2]!.seed],
      ["p90", byF[4]!.seed],
    ]);
    expect(file.picks.every((p) => p.synthesis.kind === "single" && p.synthesis.judge === "fitness")).toBe(true);
    expect(out.lines.filter((l) => l.includes(FITNESS_LABEL)).length).toBeGreaterThanOrEqual(4);
    expect(out.lines.join("\n")).toMatch(/agreement rule: single: fitness judge alone/);
  }, 60_000);

  it("never overwrites an existing judgment without --force", async () => {
    const policy = job("again");
    await judgePolicy({ task: "hopper", policy, episodes: 3 });
    await expect(judgePolicy({ task: "hopper", policy, episodes: 3 })).rejects.toThrow(/already holds a judgment\.json; give --force/);
    const again = await judgePolicy({ task: "hopper", policy, episodes: 3, force: true });
    expect(again.file.episodes).toHaveLength(3);
  }, 60_000);
});

describe("hexa judge with a versioned code judge", () => {
  it("picks the p10 / median / p90 episodes by the code judge's score, not by F", async () => {
    const policy = job("code");
    const out = await judgePolicy({ task: "hopper", policy, episodes: EPISODES, judge: writeJson("inverse.json", inverseJudge) });
    const f = out.file;
    expect(f.judge).toMatchObject({ kind: "code", id: "inverse_f", version: 1, hash: inverseJudge.hash });
    const byScore = pickEpisodes(f.episodes);
    const byF = pickEpisodes(f.episodes.map((e) => ({ ...e, score: e.fitness })));
    expect(new Set(f.episodes.map((e) => e.score)).size).toBe(EPISODES);
    expect(f.picks.map((p) => p.seed)).toEqual([byScore.p10, byScore.median, byScore.p90]);
    expect(byScore.p10).toBe(byF.p90);
    expect(byScore.p10).not.toBe(byF.p10);
    const p10 = f.picks[0]!;
    expect(p10.judgment!.judge.hash).toBe(inverseJudge.hash);
    expect(p10.synthesis.rule).toMatch(/^code judge alone: its score/);
    const text = out.lines.join("\n");
    expect(text).toMatch(/1 stays back (PASS|FAIL) \[/);
    expect(text).not.toContain(FITNESS_LABEL);
  }, 60_000);
});

describe("the judged seeds", () => {
  it("are the instance's evaluation seeds, then the next seeds that are no training seed; or the given ones", () => {
    const i = getTask("hopper").generate(1);
    expect(i.evalSeeds).toEqual([9, 10, 11]);
    expect(judgedSeeds({ episodes: 10 }, i)).toEqual([9, 10, 11, 12, 13, 14, 15, 17, 18, 19]);
    expect(judgedSeeds({ episodes: 2 }, i)).toEqual([9, 10]);
    expect(judgedSeeds({ episodes: 10, seeds: [5, 3] }, i)).toEqual([5, 3]);
    expect(() => judgedSeeds({ episodes: 10, seeds: [5, 5] }, i)).toThrow(/--seed: a seed is given twice/);
  });
});

describe("hexa judge refuses what it cannot do or trust", () => {
  it("an intent alone, with no model, names the model roles it needs", async () => {
    await expect(judgePolicy({ task: "hopper", policy: job("intent"), episodes: 3, intent: "do a backflip" })).rejects.toThrow(
      /--intent: judging the intent "do a backflip" needs a model in the roles llm\.judge .*llm\.vision/,
    );
    expect(existsSync(join(dir, "intent", "judgment"))).toBe(false);
  });

  it("a judge file edited after it was made, with an extra field, or too large", async () => {
    const policy = job("hostile");
    const edited = writeJson("edited.json", { ...inverseJudge, code: `${INVERSE_CODE}\n// more` });
    await expect(judgePolicy({ task: "hopper", policy, episodes: 3, judge: edited })).rejects.toThrow(/--judge: .*hash .* does not match/);
    const extra = writeJson("extra.json", { ...inverseJudge, run: "rm -rf /" });
    await expect(judgePolicy({ task: "hopper", policy, episodes: 3, judge: extra })).rejects.toThrow(/--judge: .*extra\.json: \(root\): .*run/);
    const big = writeJson("big.json", " ".repeat((1 << 20) + 1));
    await expect(judgePolicy({ task: "hopper", policy, episodes: 3, judge: big })).rejects.toThrow(/--judge: .* bytes, more than 1048576/);
    await expect(judgePolicy({ task: "hopper", policy, episodes: 3, judge: join(dir, "none.json") })).rejects.toThrow(/--judge: .*none\.json: no such file/);
    expect(readdirSync(join(dir, "hostile"))).toEqual(["policy.json"]);
  });

  it("a judge whose code never ends scores 0 with a timeout fault; the command finishes", async () => {
    const endless = makeJudge("endless", { intent: inverseJudge.intent, tree: inverseJudge.tree, code: "function judge(traj) { for (;;) {} }" });
    const out = await judgePolicy({ task: "hopper", policy: job("endless"), episodes: 1, judge: writeJson("endless.json", endless) });
    expect(out.file.episodes).toEqual([expect.objectContaining({ score: 0, fault: expect.stringMatching(/^timeout: /) })]);
    expect(out.lines.join("\n")).toMatch(/fault timeout: /);
  }, 30_000);

  it("a policy file whose network does not fit its numbers, naming the field", async () => {
    const good = serializePolicy(layout, initParams(layout, xoshiro128ss(1)), null);
    await expect(judgePolicy({ task: "hopper", policy: job("short", { ...good, params: "AAAA" }), episodes: 3 })).rejects.toThrow(
      /--policy: .*policy: .*parameters/,
    );
    await expect(judgePolicy({ task: "hopper", policy: job("huge", { ...good, hidden: 1e9 }), episodes: 3 })).rejects.toThrow(/policy\.hidden/);
    const oversized = job("oversized");
    truncateSync(oversized, (64 << 20) + 1);
    await expect(judgePolicy({ task: "hopper", policy: oversized, episodes: 3 })).rejects.toThrow(/--policy: .*67108865 bytes, more than 67108864/);
    await expect(judgePolicy({ task: "hopper", policy: job("count"), episodes: 101 })).rejects.toThrow(
      /--episodes: must be an integer in \[1, 100\] \(got 101\)/,
    );
  });
});
