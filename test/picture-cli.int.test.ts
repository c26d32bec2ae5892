import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createInstance } from "../levels/interphyre/instance.ts";
import { readCertified } from "../levels/interphyre/certified-seeds.ts";
import { decodeGif } from "./support/gif-decode.ts";

const hexa = (...args: string[]) => spawnSync(process.execPath, ["bin/hexa.js", ...args], { encoding: "utf8" });
const tmp = () => mkdtempSync(join(tmpdir(), "hexa-picture-"));
const certified = () => {
  const first = readCertified("two_body_problem")?.seeds[0];
  if (!first) throw new Error("levels/interphyre/certified/two_body_problem.json has no seeds; run hexa levels certify two_body_problem");
  return first;
};

describe("hexa play", () => {
  it("replays a certified solution to SUCCESS and films it", () => {
    const { seed, solution, successStep } = certified();
    const gif = join(tmp(), "solved.gif");
    // The action goes after a space even when x is negative.
    const r = hexa("play", "two_body_problem", "--seed", String(seed), "--action", solution.join(","), "--gif", gif, "--fps", "10", "--size", "48");
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`SUCCESS at step ${successStep}`);
    expect(r.stdout).toMatch(/contacts \(first begin\):\n {2}step +\d+ {2}\w+ – \w+/);
    const frames = decodeGif(readFileSync(gif)).frames;
    expect(frames.length).toBeGreaterThan(1);
    // One frame every 6 steps from step 0, plus the success step.
    expect(frames).toHaveLength(Math.floor(successStep / 6) + 1 + (successStep % 6 === 0 ? 0 : 1));
    expect(r.stdout).toContain(`wrote ${gif} (${frames.length} frames`);
  });

  it("reports a failure after the horizon", () => {
    const { seed } = certified();
    const r = hexa("play", "two_body_problem", "--seed", String(seed), "--action=-4.5,4.5,0.3", "--steps", "30");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^FAILURE after 30 steps$/m);
  });

  it("never simulates an invalid placement", () => {
    const { seed } = certified();
    const green = createInstance("two_body_problem", seed).scene.green_ball!;
    const gif = join(tmp(), "never.gif");
    const r = hexa("play", "two_body_problem", "--seed", String(seed), "--action", `${green.x},${green.y},0.3`, "--gif", gif);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^hexa: --action .*: invalid placement, the ball overlaps green_ball by [\d.]+/);
    expect(r.stdout).toBe("");
    expect(existsSync(gif)).toBe(false);
  });

  it("names the bad flag and its value, with exit 2", () => {
    const cases: [string[], RegExp][] = [
      [["--seed", "x", "--action", "0,3,0.3"], /^hexa: --seed must be a non-negative integer \(got "x"\)/],
      [["--seed", "1", "--action", "0,3"], /^hexa: --action must be three finite numbers x,y,r.*\(got "0,3"\)/],
      [["--seed", "1", "--action", "0,3,0.3", "--gif", "a.mp4"], /^hexa: --gif must end in \.gif \(got "a\.mp4"\)/],
      [["--seed", "1", "--action", "0,3,0.3", "--fps", "0"], /^hexa: --fps must be an integer in \[1, 60\] \(got "0"\)/],
    ];
    for (const [flags, message] of cases) {
      const r = hexa("play", "two_body_problem", ...flags);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});

describe("hexa levels show", () => {
  it("prints the scene and draws it", () => {
    const png = join(tmp(), "scene.png");
    const r = hexa("levels", "show", "two_body_problem", "--seed", "3", "--out", png, "--size", "64");
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines.slice(0, 3)).toEqual([
      "two_body_problem seed 3",
      "goal: green_ball touches blue_ball for 3 s",
      expect.stringMatching(/^default red ball radius: 0\.\d\d$/),
    ]);
    expect(lines[3]).toMatch(/^blue_ball\s+blue\s+ball\s+dynamic\s+\(-?\d+\.\d\d, -?\d+\.\d\d\)\s+radius 0\.\d\d$/);
    expect(lines[4]).toMatch(/^green_ball\s+green\s+ball\s+dynamic/);
    expect([...readFileSync(png).subarray(1, 4)].map((c) => String.fromCharCode(c)).join("")).toBe("PNG");
  });

  it("rejects an --out that is neither .png nor .svg", () => {
    const r = hexa("levels", "show", "two_body_problem", "--seed", "3", "--out", "scene.jpg");
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^hexa: --out must end in \.png or \.svg \(got "scene\.jpg"\)/);
    expect(r.stdout).toBe("");
  });
});
