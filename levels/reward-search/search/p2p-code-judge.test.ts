import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorJudge } from "../judging/author.ts";
import { authoredJudgeId } from "../judging/author-store.ts";
import { CORRECTED_CODE, HOPPER_TREE, json, scriptedJudgeModel } from "../judging/fixtures/author-scripted.ts";
import { getTask, loadTask } from "../tasks/index.ts";
import { codeJudgeVersions, versionAuthoredWith } from "./p2p-code-judge.ts";

const INTENT = "hop forward 1 m without falling";
const CORRECTIONS = 'Corrections from the user:\n1. "land softer" (after iteration 0)';
const dir = mkdtempSync(join(tmpdir(), "hexa-p2p-code-judge-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => {
  await loadTask("hopper");
}, 120_000);

/** A judge model answering every authoring step well, or, while `broken.now`, with words that are no answer. */
const judgeModel = (broken: { now: boolean }) =>
  scriptedJudgeModel((_call, output) => {
    if (broken.now) return "not an answer";
    const answers: Record<string, string> = {
      judge_decomposition: json({ criteria: HOPPER_TREE }),
      judge_decomposition_review: json({ change: false, findings: "complete" }),
      judge_code: json({ code: CORRECTED_CODE }),
      judge_loophole_review: json({ loophole: false, findings: "none" }),
    };
    return answers[output?.name ?? ""] ?? "no such step";
  });

describe("the code judge version of a p2p iteration", () => {
  it("authors the next version with new corrections, at most once per iteration, keeping the last one when that fails", async () => {
    const task = getTask("hopper");
    const broken = { now: false };
    const { model, requests } = judgeModel(broken);
    expect((await authorJudge({ model, intent: INTENT, task, store: dir })).ok).toBe(true);
    const id = authoredJudgeId("hopper", INTENT);
    const versionFor = codeJudgeVersions(task, INTENT, dir, model);
    expect(await versionFor(0, "")).toEqual({ file: join(dir, "judges", id, "v1.json"), version: 1 });

    broken.now = true;
    const asked = requests.length;
    const failed = await versionFor(1, CORRECTIONS);
    expect(failed.version).toBe(1);
    expect(failed.note).toMatch(/^iteration 1: the code judge was not authored again with the user's corrections \(authoring failed at .*\); v1 judges on$/);
    const tried = requests.length;
    expect(tried).toBeGreaterThan(asked);
    expect(await versionFor(1, CORRECTIONS)).toEqual({ file: join(dir, "judges", id, "v1.json"), version: 1 });
    expect(requests.length).toBe(tried);

    broken.now = false;
    const authored = await versionFor(2, CORRECTIONS);
    expect(authored.version).toBe(2);
    expect(authored.note).toMatch(new RegExp(`^iteration 2: authored judge ${id} v2: .*; it judges from here on$`));
    expect(JSON.stringify(requests[tried]!.messages)).toContain("land softer");
    expect(JSON.parse(readFileSync(join(dir, "judges", id, "v2.authoring.json"), "utf8")).corrections).toBe(CORRECTIONS);

    // Found again, as a resumed search or a replay finds it: nothing is asked.
    const done = requests.length;
    const again = codeJudgeVersions(task, INTENT, dir, model);
    expect(await again(2, CORRECTIONS)).toEqual({ file: join(dir, "judges", id, "v2.json"), version: 2 });
    expect(await again(0, "")).toEqual({ file: join(dir, "judges", id, "v1.json"), version: 1 });
    expect(versionAuthoredWith(dir, id, "other words")).toBeNull();
    expect(requests.length).toBe(done);
  }, 60_000);
});
