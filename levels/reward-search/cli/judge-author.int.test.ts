import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../../../test/support/fake-openai-server.ts";
import { hexa } from "../../../test/support/hexa-cli.ts";
import { xoshiro128ss } from "../../../src/util/rng.ts";
import { CORRECTED_CODE, HOPPER_TREE, json } from "../judging/fixtures/author-scripted.ts";
import { authoredJudgeId } from "../judging/author-store.ts";
import { getTask } from "../tasks/index.ts";
import { initParams, policyLayout, serializePolicy } from "../trainer/policy.ts";
import { JudgmentFile } from "./judge-file.ts";

/** `hexa judge --intent … --judge-model …` as a user runs it, the judge model a local OpenAI-compatible server. */
const dir = mkdtempSync(join(tmpdir(), "hexa-judge-author-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const INTENT = "hop forward 1 m without falling";

const policyFile = (): string => {
  const layout = policyLayout({ obsDim: 11, action: { kind: "continuous", dim: 3, low: [-1, -1, -1], high: [1, 1, 1] }, hidden: 16, shared: false });
  const path = join(dir, "job", "policy.json");
  mkdirSync(join(dir, "job"));
  const policy = serializePolicy(layout, initParams(layout, xoshiro128ss(3)), null);
  writeFileSync(path, JSON.stringify({ task: "hopper", instance: getTask("hopper").generate(0), seed: 0, steps: 0, policy }));
  return path;
};

describe("hexa judge with a judge model on hopper", () => {
  it("authors the code judge through the endpoint, logs each exchange, and judges with it", async () => {
    const server = await startFakeOpenAI();
    try {
      // Usage as a server with a long enough context reports it (hexa warns of a prompt cut short otherwise).
      const usage = { prompt: 3000, completion: 400 };
      server.push(
        ...[
          json({ criteria: HOPPER_TREE }),
          json({ change: false, findings: "complete" }),
          json({ code: CORRECTED_CODE }),
          json({ loophole: false, findings: "none" }),
        ].map((text) => ({ text, usage })),
      );
      const args = ["judge", "--task", "hopper", "--policy", policyFile(), "--episodes", "2", "--max-steps", "20", "--intent", INTENT];
      const out = await hexa([...args, "--judge-model", "judge-m", "--judge-base-url", server.url]);
      expect(out.stderr).toBe("");
      expect(out.status).toBe(0);
      const id = authoredJudgeId("hopper", INTENT);
      expect(out.stdout).toContain(`judged by the code judge ${id} v1`);
      expect(out.stdout).toMatch(/note: authored judge .* loophole review 1 round\(s\) \(the model found no loophole\)/);
      const judgment = join(dir, "job", "judgment");
      const file = JudgmentFile.parse(JSON.parse(readFileSync(join(judgment, "judgment.json"), "utf8")));
      expect(file.judge).toMatchObject({ kind: "code", id, version: 1 });
      expect(existsSync(join(judgment, "judges", id, "v1.authoring.json"))).toBe(true);
      expect(readFileSync(join(judgment, "llm-log.jsonl"), "utf8").trim().split("\n")).toHaveLength(4);
      expect(server.requests.map((r) => r.body.model)).toEqual(["judge-m", "judge-m", "judge-m", "judge-m"]);
    } finally {
      await server.close();
    }
  }, 120_000);
});
