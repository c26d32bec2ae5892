import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { LlmConfig } from "../../../src/llm/config.ts";
import { scriptedRole } from "../../../test/support/scripted-role.ts";
import { getTask, loadTask } from "../tasks/index.ts";
import { CORRECTED_CODE, HOPPER_TREE, HOPPER_TREE_REVISED, json, LOOPHOLE_CODE } from "./fixtures/author-scripted.ts";
import { authorJudge } from "./author.ts";

/** The judge author through the real client (the `llm.judge` role's model) against a local OpenAI-compatible server. */
const fake = scriptedRole("judge", 10_000);
let dir: string | undefined;

beforeAll(async () => {
  await loadTask("hopper");
}, 120_000);

afterEach(async () => {
  await fake.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const thinking = (answer: string) => ({ text: `<think>SECRET reasoning about ${answer.length} characters</think>${answer}` });

describe("authoring a code judge through the llm.judge role's client", () => {
  it("asks each step for its JSON schema, and no request carries an earlier answer's think block", async () => {
    const model = await fake.modelFor([
      thinking(json({ criteria: HOPPER_TREE })),
      thinking(json({ change: true, findings: "definitions missing", criteria: HOPPER_TREE_REVISED })),
      thinking(json({ change: false, findings: "complete" })),
      thinking(json({ code: LOOPHOLE_CODE })),
      thinking(json({ loophole: true, findings: "Math.abs lets backwards travel pass", code: CORRECTED_CODE })),
      thinking(json({ loophole: false, findings: "none left" })),
    ]);
    dir = mkdtempSync(join(tmpdir(), "hexa-author-wire-"));
    const out = await authorJudge({ model, intent: "hop forward 1 m without falling", task: getTask("hopper"), store: dir });
    if (!out.ok) throw new Error(out.label);
    expect(out.judge.code).toBe(CORRECTED_CODE);
    const bodies = fake.requests.map((r) => r.body);
    expect(bodies.map((b) => (b.response_format as { json_schema?: { name: string } } | undefined)?.json_schema?.name)).toEqual([
      "judge_decomposition",
      "judge_decomposition_review",
      "judge_decomposition_review",
      "judge_code",
      "judge_loophole_review",
      "judge_loophole_review",
    ]);
    // The judge role's defaults are the evolver's: a low temperature.
    expect(bodies.every((b) => b.temperature === 0.2)).toBe(true);
    for (const b of bodies) expect(JSON.stringify(b.messages)).not.toMatch(/SECRET|<think>/);
    const lastReview = bodies.at(-1)!.messages;
    expect(lastReview.filter((m) => m.role === "assistant").map((m) => m.content)).toContain(json({ code: LOOPHOLE_CODE }));
  }, 60_000);

  it("llm.judge is a role of the run config, with the evolver's defaults", () => {
    const llm = LlmConfig.parse({ judge: { model: "some-coder" } });
    expect(llm.judge).toMatchObject({ model: "some-coder", temperature: 0.2 });
    expect(LlmConfig.parse({}).judge.temperature).toBe(0.2);
  });
});
