import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../../../test/support/fake-openai-server.ts";
import { hexa } from "../../../test/support/hexa-cli.ts";
import { xoshiro128ss } from "../../../src/util/rng.ts";
import { CORRECTED_CODE, HOPPER_TREE, json } from "../judging/fixtures/author-scripted.ts";
import { getTask } from "../tasks/index.ts";
import { initParams, policyLayout, serializePolicy } from "../trainer/policy.ts";

/** `hexa judge` against a local server, the server stopped, then `hexa verify` of the judgment folder as a user runs it. */
const dir = mkdtempSync(join(tmpdir(), "hexa-judgment-verify-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const judgment = join(dir, "job", "judgment");

const policyFile = (): string => {
  const layout = policyLayout({ obsDim: 11, action: { kind: "continuous", dim: 3, low: [-1, -1, -1], high: [1, 1, 1] }, hidden: 16, shared: false });
  mkdirSync(join(dir, "job"));
  const path = join(dir, "job", "policy.json");
  writeFileSync(
    path,
    JSON.stringify({
      task: "hopper",
      instance: getTask("hopper").generate(0),
      seed: 0,
      steps: 0,
      policy: serializePolicy(layout, initParams(layout, xoshiro128ss(3)), null),
    }),
  );
  return path;
};

/** A copy of the judged folder with `change` applied to it. */
const altered = (name: string, change: (folder: string) => void): string => {
  const copy = join(dir, name);
  cpSync(judgment, copy, { recursive: true });
  change(copy);
  return copy;
};

beforeAll(async () => {
  const server = await startFakeOpenAI();
  try {
    const usage = { prompt: 3000, completion: 400 };
    const answers = [
      json({ criteria: HOPPER_TREE }),
      json({ change: false, findings: "complete" }),
      json({ code: CORRECTED_CODE }),
      json({ loophole: false, findings: "none" }),
    ];
    server.push(...answers.map((text) => ({ text, usage })));
    const args = [
      "judge",
      "--task",
      "hopper",
      "--policy",
      policyFile(),
      "--episodes",
      "3",
      "--max-steps",
      "20",
      "--intent",
      "hop forward 1 m without falling",
      "--frames",
    ];
    const out = await hexa([...args, "--judge-model", "judge-m", "--judge-base-url", server.url]);
    expect(out.status, out.stderr).toBe(0);
  } finally {
    await server.close();
  }
}, 120_000);

describe("hexa verify of a hexa judge folder, the server stopped", () => {
  it("replays the authoring from llm-log.jsonl, judges the trajectories again and says identical", async () => {
    const out = await hexa(["verify", judgment]);
    expect(out.stdout).toContain("identical: 3 trajectories re-judged");
    expect(out.stdout).toContain("4 model exchanges");
    expect(out.status).toBe(0);
  }, 120_000);

  it("hexa inspect writes the judgment's page: the code judge's tree of every pick, its synthesis rule", async () => {
    const out = await hexa(["inspect", judgment, "--out", join(dir, "judgment.html")]);
    expect(out.stderr).toBe("");
    expect(out.stdout).toMatch(
      /wrote .*judgment\.html \(\d+ KiB: judgment of hopper by the code judge hopper-intent-[0-9a-f]{16} v1: 3 episodes, 3 picks, [1-9]\d* frames/,
    );
    const html = readFileSync(join(dir, "judgment.html"), "utf8");
    // hexa judge --frames renders with Debian's chromium (.ci/run installs it): each pick's frames and trail play on the page.
    expect(html.match(/<figure class="film"/g)).toHaveLength(6);
    expect(html.match(/<h4>Code judge<\/h4>/g)).toHaveLength(3);
    expect(html).toContain("1 stays up</td><td class=");
    expect(html).toContain("code judge alone: its score");
  }, 120_000);

  it("names the difference when an answer in llm-log.jsonl was changed", async () => {
    const copy = altered("tampered", (f) => {
      const log = readFileSync(join(f, "llm-log.jsonl"), "utf8");
      // The last answer: the loophole review's findings, which only the authoring summary keeps.
      writeFileSync(join(f, "llm-log.jsonl"), log.replace('\\"findings\\":\\"none\\"', '\\"findings\\":\\"nothing found\\"'));
    });
    expect(readFileSync(join(copy, "llm-log.jsonl"), "utf8")).toContain("nothing found");
    const out = await hexa(["verify", copy]);
    expect(out.status).toBe(1);
    expect(out.stdout).toMatch(/diverged: judges\/hopper-intent-[0-9a-f]{16}\/v1\.authoring\.json\n {2}field: {4}loophole\.notes\[0\]/);
  }, 120_000);

  it("names the difference when a recorded score was changed", async () => {
    const copy = altered("score", (f) => {
      const file = JSON.parse(readFileSync(join(f, "judgment.json"), "utf8"));
      file.episodes[1].fitness += 1;
      writeFileSync(join(f, "judgment.json"), `${JSON.stringify(file, null, 2)}\n`);
    });
    const out = await hexa(["verify", copy]);
    expect(out.status).toBe(1);
    expect(out.stdout).toContain("diverged: judgment.json\n  field:    episodes[1].fitness");
  }, 120_000);

  it("refuses a hostile folder, naming the field: a path outside it, a huge log", async () => {
    const outside = altered("outside", (f) => {
      const file = JSON.parse(readFileSync(join(f, "judgment.json"), "utf8"));
      file.episodes[0].trajectory = "/etc/passwd";
      writeFileSync(join(f, "judgment.json"), JSON.stringify(file));
    });
    const a = await hexa(["verify", outside]);
    expect(a.status).toBe(2);
    expect(a.stderr).toContain('episodes[0].trajectory: "/etc/passwd" is not trajectory-');
    const huge = altered("huge", (f) => writeFileSync(join(f, "llm-log.jsonl"), Buffer.alloc((64 << 20) + 1, 0x20)));
    const b = await hexa(["verify", huge]);
    expect(b.status).toBe(2);
    expect(b.stderr).toContain("llm-log.jsonl: 67108865 bytes, more than 67108864");
  }, 120_000);
});
