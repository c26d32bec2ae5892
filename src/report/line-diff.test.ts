import { describe, expect, it } from "vitest";
import { lineDiff } from "./line-diff.ts";

describe("lineDiff", () => {
  it("keeps the common lines in order and marks the rest removed or added", () => {
    const d = lineDiff("a\nb\nc\nd", "a\nx\nc\nd\ne");
    expect(d?.map((l) => `${l.op[0]}${l.text}`)).toEqual(["sa", "rb", "ax", "sc", "sd", "ae"]);
  });

  it("gives the second text back from the first: kept and added lines are it, kept and removed ones the first", () => {
    const a = "function reward() {\n  const up = 1;\n  return up;\n}";
    const b = "// v2\nfunction reward() {\n  const up = 2;\n  const alive = 1;\n  return up + alive;\n}";
    const d = lineDiff(a, b)!;
    expect(
      d
        .filter((l) => l.op !== "removed")
        .map((l) => l.text)
        .join("\n"),
    ).toBe(b);
    expect(
      d
        .filter((l) => l.op !== "added")
        .map((l) => l.text)
        .join("\n"),
    ).toBe(a);
    expect(d.filter((l) => l.op === "same")).toHaveLength(2);
  });

  it("declines texts too long to diff", () => {
    const long = Array.from({ length: 2001 }, (_, i) => String(i)).join("\n");
    expect(lineDiff(long, `${long}\nx`)).toBeUndefined();
  });
});
