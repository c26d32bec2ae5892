import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { xoshiro128ss } from "../../../src/util/rng.ts";
import { CORRECTED_CODE, HOPPER_TREE, json, scriptedJudgeModel, WRONG_BODY_CODE } from "../judging/fixtures/author-scripted.ts";
import { authoredJudgeId } from "../judging/author-store.ts";
import { getTask, loadTask } from "../tasks/index.ts";
import { initParams, policyLayout, serializePolicy } from "../trainer/policy.ts";
import { JudgmentFile } from "./judge-file.ts";
import { judgePolicy } from "./judge-run.ts";

const dir = mkdtempSync(join(tmpdir(), "hexa-judge-author-"));
const instance = getTask("hopper").generate(0);
const layout = policyLayout({ obsDim: 11, action: { kind: "continuous", dim: 3, low: [-1, -1, -1], high: [1, 1, 1] }, hidden: 16, shared: false });
const INTENT = "hop forward 1 m without falling";

const job = (name: string): string => {
  const jobDir = join(dir, name);
  mkdirSync(jobDir);
  const path = join(jobDir, "policy.json");
  const policy = serializePolicy(layout, initParams(layout, xoshiro128ss(11)), null);
  writeFileSync(path, JSON.stringify({ task: "hopper", instance, seed: 0, steps: 0, policy }));
  return path;
};

/** A judge model answering every step, with the code given. */
const modelWith = (code: string) =>
  scriptedJudgeModel((_call, output) => {
    switch (output?.name) {
      case "judge_decomposition":
        return json({ criteria: HOPPER_TREE });
      case "judge_decomposition_review":
        return json({ change: false, findings: "ok" });
      case "judge_code":
        return json({ code });
      default:
        return json({ loophole: false, findings: "none" });
    }
  });

beforeAll(async () => {
  await loadTask("hopper");
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("hexa judge with a judge model", () => {
  it("authors a code judge for the intent when the store has none, judges with it, and reuses it next time", async () => {
    const store = join(dir, "judges");
    const scripted = modelWith(CORRECTED_CODE);
    const logDirs: string[] = [];
    const author = {
      store,
      model: async (d: string) => {
        logDirs.push(d);
        return scripted.model;
      },
    };
    const policy = job("authored");
    const first = await judgePolicy({ task: "hopper", policy, episodes: 3, intent: INTENT, author });
    const file = JudgmentFile.parse(JSON.parse(readFileSync(join(first.dir, "judgment.json"), "utf8")));
    const id = authoredJudgeId("hopper", INTENT);
    expect(file.judge).toMatchObject({ kind: "code", id, version: 1 });
    expect(file.intent).toBe(INTENT);
    expect(file.notes[0]).toMatch(new RegExp(`^authored judge ${id} v1: `));
    expect(file.picks.every((p) => p.judgment?.nodes.length === 2)).toBe(true);
    expect(logDirs).toEqual([first.dir]);
    expect(scripted.requests).toHaveLength(4);
    expect(existsSync(join(store, "judges", id, "v1.json"))).toBe(true);

    const again = await judgePolicy({ task: "hopper", policy, episodes: 3, intent: INTENT, author, force: true });
    expect(again.file.judge).toMatchObject({ kind: "code", id, version: 1 });
    expect(again.file.notes[0]).toMatch(/was stored for this intent .*; not authored again/);
    expect(scripted.requests).toHaveLength(4);
  }, 120_000);

  it("a failed authoring ends the command with its label, and nothing is judged", async () => {
    const policy = job("failed");
    const author = { model: async () => modelWith(WRONG_BODY_CODE).model };
    await expect(judgePolicy({ task: "hopper", policy, episodes: 3, intent: INTENT, author })).rejects.toThrow(
      /^llm\.judge: authoring failed at implement: 5 tries, last error error: .*no thigh_left body.*; nothing was judged/,
    );
    expect(existsSync(join(dir, "failed", "judgment", "judgment.json"))).toBe(false);
  }, 120_000);
});
