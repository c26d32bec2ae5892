import { describe, expect, it } from "vitest";
import { splitThink } from "./think.ts";

describe("splitThink", () => {
  it("leaves content without tags as it is", () => {
    expect(splitThink("  plain {json}  ")).toEqual({ text: "  plain {json}  ", think: "" });
  });
  it("moves closed blocks out, braces and all", () => {
    expect(splitThink('<think>try {a}</think>\n{"ok": 1}')).toEqual({ text: '{"ok": 1}', think: "try {a}" });
  });
  it("reads reasoning whose opening tag was in the prompt (only </think> in the answer)", () => {
    expect(splitThink("step one\n</think>\n\nAnswer.")).toEqual({ text: "Answer.", think: "step one" });
  });
  it("takes the rest of an answer cut inside a block as reasoning", () => {
    expect(splitThink("Lead.<think>never closed")).toEqual({ text: "Lead.", think: "never closed" });
  });
});
