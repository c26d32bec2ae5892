import { describe, expect, it } from "vitest";
import { terminalLine, terminalText } from "./terminal-text.ts";

describe("record text on a terminal", () => {
  it("shows ESC sequences, C0 controls, DEL, C1 and bidi controls as visible escapes", () => {
    expect(terminalText("\x1b[32midentical\x1b[0m")).toBe("\\x1b[32midentical\\x1b[0m");
    expect(terminalText("a\rb\bc\x07d\x7fe\u009b2Jf\u0085g")).toBe("a\\x0db\\x08c\\x07d\\x7fe\\u009b2Jf\\u0085g");
    expect(terminalText("abc\u202edef\u2066")).toBe("abc\\u202edef\\u2066");
    expect(terminalText("\0")).toBe("\\x00");
  });

  it("keeps tabs and newlines in multi-line text, and escapes them in a one-line field", () => {
    expect(terminalText("line one\n\tline two")).toBe("line one\n\tline two");
    expect(terminalLine("s57\nidentical: 2 episodes\t.")).toBe("s57\\x0aidentical: 2 episodes\\x09.");
  });

  it("leaves printable text alone, other scripts and emoji included", () => {
    const plain = "catapult r1/s57 — weight 0.50 → «ok» 日本語 🚀 \\x1b";
    expect(terminalText(plain)).toBe(plain);
    expect(terminalLine(plain)).toBe(plain);
  });
});
