import { describe, expect, it } from "vitest";
import { cuttable, kept } from "../src/family/observation.ts";
import { compactObservation } from "./compact-observation.ts";

// A catapult rollout's observation as simulate_action writes it: goal objects kept, the others one cuttable run.
const rollout = [
  kept("FAILURE after 1500 steps (everything at rest from step 412). Longest green_ball–blue_ball contact: 0.35 s of 3."),
  kept("red_ball first contacts: catapult_arm @31, bottom_wall @120"),
  kept("Dynamic objects at the end:"),
  kept("- blue_ball at (3.21, -4.60) v=(0.00, 0.00) angle=12.0° resting"),
  cuttable(
    ["- catapult_arm at (-1.20, -3.90) v=(0.00, 0.00) angle=-8.4° resting", "- counterweight at (-2.95, -4.41) v=(0.00, 0.00) angle=0.0° resting"].join("\n"),
  ),
  kept("- green_ball at (-4.78, -4.78) v=(0.00, 0.00) angle=300.1° resting"),
  cuttable("- red_ball at (0.80, -4.05) v=(0.00, 0.00) angle=45.0° resting"),
];

describe("compactObservation", () => {
  it("cuts a single unseparated text to its head and tail", () => {
    expect(compactObservation([cuttable("a".repeat(500) + "z".repeat(500))], 300)).toBe(`${"a".repeat(200)} … [700 characters cut] … ${"z".repeat(100)}`);
  });

  it("returns the observation unchanged when it fits", () => {
    const text = rollout.map((s) => s.text).join("\n");
    expect(compactObservation(rollout, text.length)).toBe(text);
  });

  it("keeps every kept section whole even past the budget, and cuts only the others", () => {
    const out = compactObservation(rollout, 120);
    for (const s of rollout.filter((r) => r.keep)) expect(out).toContain(s.text);
    expect(out).not.toContain("catapult_arm at");
    expect(out).not.toContain("red_ball at");
    expect(out.split("\n").filter((l) => /^\[… \d+ characters cut\]$/.test(l))).toHaveLength(2);
  });

  it("cuts a multi-line section at line ends, so no object's line runs into another's", () => {
    const objects = Array.from({ length: 12 }, (_, i) => `- ball_${String(i).padStart(2, "0")} at (${i}.00, 1.00) v=(0.00, 0.00) angle=0.0°`);
    const out = compactObservation([kept("head"), cuttable(objects.join("\n"))], 300);
    const lines = out.split("\n");
    const note = lines.findIndex((l) => /^\[… \d+ lines \(\d+ characters\) cut\]$/.test(l));
    expect(note).toBeGreaterThan(1);
    // Every other line is a whole object line, in order.
    const whole = lines.filter((_, i) => i > 0 && i !== note);
    expect(whole.every((l) => objects.includes(l))).toBe(true);
    expect(whole[0]).toBe(objects[0]);
    expect(whole.at(-1)).toBe(objects.at(-1));
  });

  it("cuts a one-line section inside itself, between its items, under its own kept label", () => {
    const waypoints = (name: string) => `  step: (x, y) ${Array.from({ length: 40 }, (_, i) => `${i * 30}: (${name}${i}, -4.78)`).join(" | ")}`;
    const sections = [kept("green_ball: peak y 2.00 @40"), cuttable(waypoints("g"), " | "), kept("blue_ball: peak y 1.00 @0"), cuttable(waypoints("b"), " | ")];
    const lines = compactObservation(sections, 300).split("\n");
    expect(lines[0]).toBe("green_ball: peak y 2.00 @40");
    expect(lines[1]).toMatch(
      /^ {2}step: \(x, y\) 0: \(g0, -4\.78\) \| .*\(g\d+, -4\.78\) \| \[… \d+ items \(\d+ characters\) cut\] \| \d+: \(g\d+, -4\.78\) .*\| 1170: \(g39, -4\.78\)$/,
    );
    expect(lines[1]).not.toContain("(b");
    expect(lines[2]).toBe("blue_ball: peak y 1.00 @0");
    expect(lines[3]).not.toContain("(g");
  });
});
