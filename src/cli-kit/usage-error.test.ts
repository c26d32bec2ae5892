import { describe, expect, it } from "vitest";
import { usageErrorText } from "./usage-error.ts";

const run = { path: ["run"], flags: ["help", "version", "runs-dir", "resume", "budget-usd"], commands: [] };

describe("usageErrorText", () => {
  it("puts the error first, with what was meant, then only a pointer to the command's help", () => {
    const text = usageErrorText("Unknown argument: runsdir", run, "./hexa", false);
    expect(text).toBe("hexa: Unknown argument: runsdir; did you mean --runs-dir?\nsee ./hexa run --help\n");
  });

  it("suggests a command at the top", () => {
    const top = { path: [], flags: ["help", "version"], commands: ["levels", "run", "eval"] };
    expect(usageErrorText("Unknown argument: rn", top, "npx hexa", false)).toBe("hexa: Unknown argument: rn; did you mean run?\nsee npx hexa --help\n");
  });

  it("names each of several unknown arguments it has a suggestion for", () => {
    expect(usageErrorText("Unknown arguments: runsdir, zzz", run, "hexa", false).split("\n")[0]).toBe(
      "hexa: Unknown arguments: runsdir, zzz; runsdir: did you mean --runs-dir?",
    );
  });

  it("colours the error line red where the terminal shows colour", () => {
    expect(usageErrorText("Unknown argument: zzz", run, "hexa", true)).toBe("\u001b[31mhexa: Unknown argument: zzz\u001b[39m\nsee hexa run --help\n");
  });
});
