import { describe, expect, it } from "vitest";
import { ball, bar, basket } from "../objects.ts";
import type { ContactEvent } from "../world/contacts.ts";
import { contactLines, sceneHeader, sceneLines } from "./scene-text.ts";

describe("sceneLines", () => {
  it("prints one line per object in name order: colour, type, body type, position, size", () => {
    const lines = sceneLines({
      wall_bar: bar(1, -2, 3, 15, { color: "black", dynamic: false }),
      green_ball: ball(-1.234, 0.5, 0.3, { color: "green" }),
      cup: basket(2, -4, 1, { color: "gray" }),
    });
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^cup\s+gray\s+basket\s+dynamic\s+\(2\.00, -4\.00\)\s+bottom 1\.08 top 1\.35 height 2\.00 wall 0\.17 angle 0\.0° anchor bottom_center$/,
    );
    expect(lines[1]).toMatch(/^green_ball\s+green\s+ball\s+dynamic\s+\(-1\.23, 0\.50\)\s+radius 0\.30$/);
    expect(lines[2]).toMatch(/^wall_bar\s+black\s+bar\s+static\s+\(1\.00, -2\.00\)\s+length 3\.00 thickness 0\.20 angle 15\.0°$/);
  });

  it("heads the scene with level, seed, goal and default radius", () => {
    expect(sceneHeader({ level: "catapult", seed: 7, goal: ["green_ball", "blue_ball"], defaultRadius: 0.8 })).toEqual([
      "catapult seed 7",
      "goal: green_ball touches blue_ball for 3 s",
      "default red ball radius: 0.80",
    ]);
  });
});

describe("contactLines", () => {
  const ev = (step: number, event: "begin" | "end", a: string, b: string): ContactEvent => ({ step, event, a, b });
  const log = [
    ev(1, "begin", "b", "a"),
    ev(3, "end", "a", "b"),
    ev(5, "begin", "a", "b"),
    ev(2, "begin", "z", "c"),
    ev(2, "begin", "c", "d"),
    ev(9, "begin", "e", "f"),
  ];

  it("lists each pair once at its first begin, counting repeated begins", () => {
    expect(contactLines(log, 10)).toEqual(["  step     1  a – b  (2 begins)", "  step     2  c – d", "  step     2  c – z", "  step     9  e – f"]);
  });

  it("caps the list and says how many pairs were left out", () => {
    expect(contactLines(log, 2)).toEqual(["  step     1  a – b  (2 begins)", "  step     2  c – d", "  … and 2 more pairs"]);
  });
});
