import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/errors.ts";
import { applyCommand, elicitCriteria } from "./search-elicit.ts";

const PROPOSED = ["The hopper leaves the ground", "It rotates backwards", "It lands on its foot"];

/** The elicitation answered by `answers` (one line each), and all it wrote. */
const elicit = async (answers: readonly string[], proposed = PROPOSED) => {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  output.setEncoding("utf8").on("data", (d: string) => (shown += d));
  input.end(answers.map((a) => `${a}\n`).join(""));
  try {
    return { criteria: await elicitCriteria(proposed, { input, output }), shown };
  } catch (e) {
    return { error: e as Error, shown };
  }
};

describe("criteria elicitation at a terminal", () => {
  it("shows the proposal numbered and returns the lines the user added, edited and kept", async () => {
    const r = await elicit([
      "a It does not fall after landing",
      "a Its torso stays above its foot",
      "e 2 It rotates backwards a full turn",
      "a It hops in place",
      "d 5",
      "a Its rotation is backwards, not forwards",
      "",
    ]);
    expect(r.shown).toContain("   1. The hopper leaves the ground\n   2. It rotates backwards\n   3. It lands on its foot\n> ");
    expect(r.criteria).toEqual([
      "The hopper leaves the ground",
      "It rotates backwards a full turn",
      "It lands on its foot",
      "It does not fall after landing",
      "It hops in place",
      "Its rotation is backwards, not forwards",
    ]);
  });

  it("refuses to confirm fewer than 5 or more than 10, saying so, and goes on asking", async () => {
    const r = await elicit(["", "a One more criterion", "a And another one", ""]);
    expect(r.shown).toContain("3 criteria: accept 5–10 (Prompt-to-Policy's range); add lines with a TEXT");
    expect(r.criteria).toHaveLength(5);
    const many = Array.from({ length: 11 }, (_, i) => `Criterion number ${i + 1}`);
    const over = await elicit(["", "d 11", ""], many);
    expect(over.shown).toContain("11 criteria: accept 5–10 (Prompt-to-Policy's range); drop lines with d N");
    expect(over.criteria).toEqual(many.slice(0, 10));
  });

  it("is refused when the user quits or the input ends, naming that nothing was trained", async () => {
    for (const answers of [["q"], ["d 1"]]) {
      const r = await elicit(answers);
      expect(r.error).toBeInstanceOf(ConfigError);
      expect(r.error?.message).toMatch(/^criteria: none accepted; nothing was trained/);
    }
  });

  it("says what a command lacks and leaves the list as it was", () => {
    expect(applyCommand(PROPOSED, "d 4")).toBe('no line "4"; lines are 1–3');
    expect(applyCommand(PROPOSED, "e 1")).toBe("e N TEXT: give line N's new text");
    expect(applyCommand(PROPOSED, "a")).toBe("a TEXT: give the criterion to add");
    expect(applyCommand(PROPOSED, "x")).toMatch(/^Enter: accept these/);
  });

  it("shows a proposed line's control characters as text, not to the terminal", async () => {
    const r = await elicit(["q"], ["It jumps\u001b[2J high", ...PROPOSED]);
    expect(r.shown).not.toContain("\u001b[2J");
  });
});
