import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { getTask, loadTask } from "../tasks/index.ts";
import { AUTHORING_CAPS } from "./author-decompose.ts";
import {
  CORRECTED_CODE,
  HOPPER_TREE,
  HOPPER_TREE_REVISED,
  json,
  LOOPHOLE_CODE,
  type ScriptedAnswer,
  scriptedJudgeModel,
  WRONG_BODY_CODE,
} from "./fixtures/author-scripted.ts";
import { authoredJudgeId, storedJudgeFor } from "./author-store.ts";
import { authorJudge } from "./author.ts";
import { randomRollout } from "./author-validate.ts";
import { judgeTrajectory } from "./judge.ts";
import { loadJudge } from "./judge-store.ts";

const INTENT = "hop forward 1 m without falling";
let dir: string;

beforeAll(async () => {
  await loadTask("hopper");
}, 120_000);

afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const store = () => {
  dir = mkdtempSync(join(tmpdir(), "hexa-author-"));
  return dir;
};

/** Answers chosen by the step the request asks for (the output schema's name), in order per step. */
const byStep = (steps: Record<string, ScriptedAnswer[]>, fallback: Record<string, ScriptedAnswer> = {}) => {
  const used: Record<string, number> = {};
  return (_call: number, output: { name: string } | undefined): ScriptedAnswer => {
    const name = output?.name ?? "none";
    const k = (used[name] = (used[name] ?? -1) + 1);
    const answer = steps[name]?.[k] ?? fallback[name];
    if (answer === undefined) throw new Error(`no scripted answer for ${name} #${k}`);
    return answer;
  };
};

const hopper = () => getTask("hopper");

describe("authoring a code judge with a scripted model", () => {
  it("runs the whole protocol: decompose, a review that changes the tree, a failed then passing implementation, a loophole corrected", async () => {
    const { model, requests } = scriptedJudgeModel(
      byStep({
        judge_decomposition: [json({ criteria: HOPPER_TREE })],
        judge_decomposition_review: [
          json({ change: true, findings: "definitions missing", criteria: HOPPER_TREE_REVISED }),
          json({ change: false, findings: "complete" }),
        ],
        judge_code: [json({ code: WRONG_BODY_CODE }), json({ code: LOOPHOLE_CODE })],
        judge_loophole_review: [
          json({ loophole: true, findings: "Math.abs lets a hopper going backwards pass 1.2", code: CORRECTED_CODE }),
          json({ loophole: false, findings: "signed travel, torso by name" }),
        ],
      }),
    );
    const out = await authorJudge({ model, intent: INTENT, task: hopper(), store: store(), seed: 3 });
    if (!out.ok) throw new Error(out.label);
    expect(requests.map((r) => r.output?.name)).toEqual([
      "judge_decomposition",
      "judge_decomposition_review",
      "judge_decomposition_review",
      "judge_code",
      "judge_code",
      "judge_loophole_review",
      "judge_loophole_review",
    ]);
    // The system prompt carries hopper's body and joint tables and the episode's length.
    const system = requests[0]!.messages[0]!.content;
    expect(system).toContain("1: torso, parent world");
    expect(system).toMatch(/thigh_joint \(hinge\) qpos\[3\], qvel\[3\]; \+q rotates right-handed about axis \[0, -1, 0\]/);
    expect(system).toContain("a full episode is 1000 steps");
    // The failed try was run on hopper's real episode, and its error went back to the model.
    const fix = requests[4]!.messages.at(-1)!.content;
    expect(fix).toContain("no thigh_left body");
    expect(out.summary.implement).toMatchObject({ rounds: 2, stopped: "passed validation on try 2" });
    expect(out.summary.review).toMatchObject({ rounds: 2, stopped: "the model said no change" });
    expect(out.summary.loophole).toMatchObject({ rounds: 2, stopped: "the model found no loophole" });
    expect(out.summary.sample).toEqual({ task: "hopper", seed: 3, steps: 5 });
    // Stored: the reviewed tree and the corrected code, version 1, with the summary beside it.
    const judge = loadJudge(dir, authoredJudgeId("hopper", INTENT), 1);
    expect(judge).toEqual(out.judge);
    expect(judge.tree.definitions).toBe(HOPPER_TREE_REVISED.definitions);
    expect(judge.code).toBe(CORRECTED_CODE);
    const authoring = JSON.parse(readFileSync(join(dir, "judges", judge.id, "v1.authoring.json"), "utf8"));
    expect(authoring.label).toMatch(/^authored judge hopper-intent-[0-9a-f]{16} v1: decomposition reviewed 2 round\(s\)/);
    expect(authoring.calls).toHaveLength(7);
    expect(storedJudgeFor(dir, "hopper", INTENT)?.hash).toBe(judge.hash);
    // The stored judge judges a real episode.
    const j = await judgeTrajectory(judge, "s4", randomRollout(hopper(), hopper().generate(0), 4).record);
    expect(j.fault).toBeUndefined();
    expect(j.nodes.map((n) => n.leaf?.status)).toEqual(["PASS", "FAIL"]);
  }, 60_000);

  it("authors the next version when the intent already has a judge", async () => {
    const answers = {
      judge_decomposition: json({ criteria: HOPPER_TREE }),
      judge_decomposition_review: json({ change: false, findings: "ok" }),
      judge_code: json({ code: CORRECTED_CODE }),
      judge_loophole_review: json({ loophole: false, findings: "none" }),
    };
    const at = store();
    const first = await authorJudge({ model: scriptedJudgeModel(byStep({}, answers)).model, intent: INTENT, task: hopper(), store: at });
    const second = await authorJudge({ model: scriptedJudgeModel(byStep({}, answers)).model, intent: INTENT, task: hopper(), store: at });
    expect(first.ok && second.ok && [first.judge.version, second.judge.version]).toEqual([1, 2]);
    expect(existsSync(join(at, "judges", authoredJudgeId("hopper", INTENT), "v2.authoring.json"))).toBe(true);
  }, 60_000);

  it("keeps the caps: 5 decomposition reviews, 5 implementation tries, then a labelled failure", async () => {
    const { model, requests } = scriptedJudgeModel(
      byStep(
        {},
        {
          judge_decomposition: json({ criteria: HOPPER_TREE }),
          judge_decomposition_review: json({ change: true, findings: "again", criteria: HOPPER_TREE }),
          judge_code: json({ code: WRONG_BODY_CODE }),
        },
      ),
    );
    const out = await authorJudge({ model, intent: INTENT, task: hopper(), store: store() });
    expect(AUTHORING_CAPS).toEqual({ reviews: 5, tries: 5, loopholes: 5 });
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(requests).toHaveLength(1 + 5 + 5);
    expect(out.stage).toBe("implement");
    expect(out.label).toMatch(/^authoring failed at implement: 5 tries, last error error: the judge's code threw while judging: Error: no thigh_left body/);
    expect(out.summary.review.stopped).toBe("5 rounds, each with a change: the last revision is kept");
    expect(out.summary.implement.notes).toHaveLength(5);
    expect(existsSync(join(dir, "judges"))).toBe(false);
  }, 60_000);

  it("keeps the loophole review to 5 rounds and the last code that passed validation", async () => {
    let round = 0;
    const { model, requests } = scriptedJudgeModel(
      byStep(
        {},
        {
          judge_decomposition: json({ criteria: HOPPER_TREE }),
          judge_decomposition_review: json({ change: false, findings: "ok" }),
          judge_code: json({ code: LOOPHOLE_CODE }),
          // Rounds 1-4 return corrected code; round 5 returns code that fails validation, which is not kept.
          judge_loophole_review: () => json({ loophole: true, findings: `round ${++round}`, code: round < 5 ? CORRECTED_CODE : WRONG_BODY_CODE }),
        },
      ),
    );
    const out = await authorJudge({ model, intent: INTENT, task: hopper(), store: store() });
    if (!out.ok) throw new Error(out.label);
    expect(requests.filter((r) => r.output?.name === "judge_loophole_review")).toHaveLength(5);
    expect(out.summary.loophole.stopped).toBe("5 rounds, each finding a loophole: the last corrected code that passed validation is kept");
    expect(out.summary.loophole.notes[4]).toMatch(/corrected code failed validation: error: .*no thigh_left body/);
    expect(out.judge.code).toBe(CORRECTED_CODE);
  }, 60_000);

  it("never shows a review the reasoning or think blocks of earlier answers", async () => {
    const think = (s: string) => `<think>SECRET-THINK ${s}</think>${s}`;
    const { model, requests } = scriptedJudgeModel(
      byStep({
        judge_decomposition: [think(json({ criteria: HOPPER_TREE }))],
        judge_decomposition_review: [
          think(json({ change: true, findings: "x", criteria: HOPPER_TREE_REVISED })),
          think(json({ change: false, findings: "ok" })),
        ],
        judge_code: [think(json({ code: CORRECTED_CODE }))],
        judge_loophole_review: [think(json({ loophole: false, findings: "none" }))],
      }),
      "SECRET-REASONING",
    );
    const out = await authorJudge({ model, intent: INTENT, task: hopper(), store: store() });
    expect(out.ok).toBe(true);
    const reviews = requests.filter((r) => r.output?.name?.endsWith("_review"));
    expect(reviews).toHaveLength(3);
    for (const r of requests) expect(JSON.stringify(r.messages)).not.toMatch(/SECRET|<think>/);
    // The answers themselves are in the history, as text.
    expect(reviews.at(-1)!.messages.filter((m) => m.role === "assistant")).toHaveLength(4);
  }, 60_000);
});

describe("authoring failures end labelled, never as a crash", () => {
  const base = {
    judge_decomposition: json({ criteria: HOPPER_TREE }),
    judge_decomposition_review: json({ change: false, findings: "ok" }),
    judge_loophole_review: json({ loophole: false, findings: "none" }),
  };

  it("contains hostile code (endless loop, huge output, host access, memory), feeds each fault back, then authors", async () => {
    const hostile = [
      "function judge(traj) { for (;;) {} }",
      'function judge(traj) { const big = "v".repeat(1e6); return Array.from({ length: 5000 }, () => ({ id: "1", value: big, score: 0, passed: false, note: big })); }',
      'function judge(traj) { return [{ id: "1", value: require("fs").readFileSync("/etc/passwd", "utf8"), score: 1, passed: true, note: process.env.HOME }]; }',
      "function judge(traj) { const a = []; for (;;) a.push(new Float64Array(1 << 20)); }",
    ];
    const { model } = scriptedJudgeModel(byStep({ judge_code: [...hostile, CORRECTED_CODE].map((code) => json({ code })) }, base));
    const out = await authorJudge({ model, intent: INTENT, task: hopper(), store: store(), limits: { cpuMs: 500 } });
    if (!out.ok) throw new Error(out.label);
    expect(out.summary.implement.stopped).toBe("passed validation on try 5");
    const [loop, huge, host, memory] = out.summary.implement.notes;
    expect(loop).toMatch(/^timeout: the judge's code ran longer than 500 ms/);
    expect(huge).toMatch(/^shape: judge returned 5000 results, more than 128/);
    expect(host).toMatch(/^error: .*ReferenceError: .*require/);
    expect(memory).toMatch(/^memory: the judge's code exceeded the sandbox memory limit/);
    expect(out.summary.implement.notes).toHaveLength(4);
  }, 60_000);

  it("names the field of a decomposition the schema refuses, and fails at decompose after one retry", async () => {
    const bad = { ...HOPPER_TREE, children: [{ ...HOPPER_TREE.children[0], threshold: undefined }, HOPPER_TREE.children[1]] };
    const { model, requests } = scriptedJudgeModel(byStep({}, { judge_decomposition: json({ criteria: bad }) }));
    const out = await authorJudge({ model, intent: INTENT, task: hopper(), store: store() });
    expect(out).toMatchObject({ ok: false, stage: "decompose" });
    if (out.ok) return;
    expect(out.label).toMatch(
      /^authoring failed at decompose: ModelOutputError: decompose: the answer could not be used after 2 tries: criteria\.children\[0\]\.threshold/,
    );
    expect(requests[1]!.messages.at(-1)!.content).toMatch(/^Your answer could not be used: criteria\.children\[0\]\.threshold/);
  }, 60_000);

  it("bounds the answer: code over 64 KiB, a review that finds a loophole without code, a model that fails", async () => {
    const long = `function judge(traj) { return []; }\n//${"x".repeat(70_000)}`;
    const tooLong = scriptedJudgeModel(byStep({}, { ...base, judge_code: json({ code: long }) }));
    const a = await authorJudge({ model: tooLong.model, intent: INTENT, task: hopper(), store: store() });
    expect(a.ok || a.summary.implement.notes[0]).toMatch(/code: Too big: expected string to have <=65536 characters/);

    const noCode = scriptedJudgeModel(
      byStep({}, { ...base, judge_code: json({ code: CORRECTED_CODE }), judge_loophole_review: json({ loophole: true, findings: "bad" }) }),
    );
    const b = await authorJudge({ model: noCode.model, intent: INTENT, task: hopper(), store: store() });
    expect(b.ok || b.label).toMatch(/^authoring failed at loophole review: .*code: missing; loophole is true, so give the whole corrected code/);

    const down = scriptedJudgeModel(() => {
      throw new Error("connection refused");
    });
    const c = await authorJudge({ model: down.model, intent: INTENT, task: hopper(), store: store() });
    expect(c.ok || c.label).toMatch(/^authoring failed at decompose: .*connection refused/);

    const d = await authorJudge({ model: down.model, intent: "x".repeat(4001), task: hopper(), store: store() });
    expect(d.ok || d.label).toBe("authoring failed at intent: the intent must be 1 to 4000 characters (got 4001); give a shorter intent");
  }, 60_000);
});
