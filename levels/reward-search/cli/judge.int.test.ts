import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hexa } from "../../../test/support/hexa-cli.ts";
import { xoshiro128ss } from "../../../src/util/rng.ts";
import { CHROMIUM } from "../pictures/episode-frames.ts";
import { getTask } from "../tasks/index.ts";
import { initParams, policyLayout, serializePolicy } from "../trainer/policy.ts";
import { JudgmentFile } from "./judge-file.ts";
import { FITNESS_LABEL } from "./judge-fitness.ts";

/** `hexa judge` as a user runs it: exit statuses, printed labels, frames of the picks. */
const dir = mkdtempSync(join(tmpdir(), "hexa-judge-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const policyFile = (name: string): string => {
  const layout = policyLayout({ obsDim: 11, action: { kind: "continuous", dim: 3, low: [-1, -1, -1], high: [1, 1, 1] }, hidden: 16, shared: false });
  const jobDir = join(dir, name);
  mkdirSync(jobDir);
  const path = join(jobDir, "policy.json");
  const policy = serializePolicy(layout, initParams(layout, xoshiro128ss(3)), null);
  writeFileSync(path, JSON.stringify({ task: "hopper", instance: getTask("hopper").generate(0), seed: 0, steps: 0, policy }));
  return path;
};

describe("hexa judge on hopper, without a model", () => {
  it("an intent alone exits 2 naming the model roles it needs, and writes nothing", async () => {
    const policy = policyFile("intent");
    const out = await hexa(["judge", "--task", "hopper", "--policy", policy, "--intent", "do a backflip"]);
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/llm\.judge .*llm\.vision/);
    expect(readdirSync(join(dir, "intent"))).toEqual(["policy.json"]);
  }, 60_000);

  it("the fitness judge, labelled, with one episode's frames and trail at 480 × 480, rendered once for its three picks (or a note without chromium)", async () => {
    const policy = policyFile("frames");
    const out = await hexa(["judge", "--task", "hopper", "--policy", policy, "--episodes", "1", "--max-steps", "6", "--frames"]);
    expect(out.stderr).toBe("");
    expect(out.status).toBe(0);
    expect(out.stdout).toContain(FITNESS_LABEL);
    expect(out.stdout).toMatch(/agreement rule: single: fitness judge alone/);
    const judged = join(dir, "frames", "judgment");
    const file = JudgmentFile.parse(JSON.parse(readFileSync(join(judged, "judgment.json"), "utf8")));
    expect(file.episodes.map((e) => e.steps)).toEqual([6]);
    expect(file.picks.map((p) => p.seed)).toEqual(Array(3).fill(file.episodes[0]!.seed));
    if (!existsSync(CHROMIUM)) {
      expect(file.notes.join("\n")).toMatch(/no frames rendered/);
      return;
    }
    for (const p of file.picks) {
      const names = readdirSync(join(judged, "frames", String(p.seed)));
      expect(names.filter((n) => n.startsWith("frame-")).length).toBeGreaterThan(0);
      expect(names.filter((n) => n.startsWith("trail-")).length).toBe(names.filter((n) => n.startsWith("frame-")).length);
      const png = readFileSync(join(judged, "frames", String(p.seed), "frame-0000.png"));
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([480, 480]);
      expect(p.frames).toBe(join("frames", String(p.seed)));
    }
    const again = await hexa(["judge", "--task", "hopper", "--policy", policy, "--episodes", "1", "--max-steps", "6"]);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/already holds a judgment\.json; give --force/);
  }, 120_000);
});
