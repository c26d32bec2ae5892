import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors.ts";
import { intFlag, parseAction, pictureFormat } from "./flags.ts";

describe("flag parsers", () => {
  it("parses --action as three finite numbers and names the flag otherwise", () => {
    expect(parseAction("-1.5, 2,0.4")).toEqual({ x: -1.5, y: 2, radius: 0.4 });
    for (const bad of ["1,2", "1,2,3,4", "1,,3", "1,2,x", "1,2,Infinity", undefined]) {
      expect(() => parseAction(bad)).toThrow(ConfigError);
      expect(() => parseAction(bad)).toThrow(/^--action must be three finite numbers x,y,r/);
    }
  });

  it("checks integer flags against their range", () => {
    const fps = intFlag("fps", 1, 60);
    expect(fps("20")).toBe(20);
    expect(fps(30)).toBe(30);
    expect(() => fps("0")).toThrow('--fps must be an integer in [1, 60] (got "0")');
    expect(() => fps("2.5")).toThrow(/--fps/);
    expect(() => fps("")).toThrow(/--fps/);
  });

  it("takes the picture format from the extension", () => {
    expect(pictureFormat("out", "docs/a.PNG", ["png", "svg"])).toBe("png");
    expect(() => pictureFormat("out", "a.jpg", ["png", "svg"])).toThrow('--out must end in .png or .svg (got "a.jpg")');
    expect(() => pictureFormat("gif", "movie", ["gif"])).toThrow(/--gif must end in \.gif/);
  });
});
