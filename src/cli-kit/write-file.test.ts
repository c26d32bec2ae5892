import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../errors.ts";
import { asUserError, assertWritable } from "./write-file.ts";

const dir = mkdtempSync(join(tmpdir(), "hexa-write-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("assertWritable (hexa episode --out is checked before a paid episode is played)", () => {
  it("accepts a new file in an existing folder, and an existing file", () => {
    expect(() => assertWritable("out", join(dir, "t.json"))).not.toThrow();
    writeFileSync(join(dir, "old.json"), "{}");
    expect(() => assertWritable("out", join(dir, "old.json"))).not.toThrow();
  });

  it("refuses a folder that does not exist, a file in the way and a folder as the file, naming the flag", () => {
    expect(() => assertWritable("out", "/nonexistent/x.json")).toThrow(
      new ConfigError("--out: cannot write /nonexistent/x.json (no folder /nonexistent); name a file in an existing, writable folder"),
    );
    writeFileSync(join(dir, "file"), "");
    expect(() => assertWritable("out", join(dir, "file", "x.json"))).toThrow(/--out: cannot write .*\(.*file is not a folder\)/);
    expect(() => assertWritable("out", dir)).toThrow(/--out: cannot write .* \(it is a folder\)/);
  });
});

describe("asUserError: a file-system failure is the user's to fix, anything else stays a bug", () => {
  const fsError = (code: string, syscall: string, path: string) =>
    Object.assign(new Error(`${code}: ${syscall} '${path}'`), { code, syscall, path, errno: -1 });

  it("a full disk, a read-only file system and a denied write read as hexa: messages with the path and the fix", () => {
    const full = asUserError(fsError("ENOSPC", "write", "/runs/r/episodes.jsonl"), "free space, then: hexa run --resume /runs/r");
    expect(full).toEqual(
      new ConfigError("/runs/r/episodes.jsonl: cannot write (no space left on the device, ENOSPC); free space, then: hexa run --resume /runs/r"),
    );
    expect(asUserError(fsError("EROFS", "mkdir", "/ro/runs"), "fix")).toBeInstanceOf(ConfigError);
    expect((asUserError(fsError("EACCES", "open", "/r/run.lock"), "fix") as Error).message).toBe("/r/run.lock: cannot open (permission denied, EACCES); fix");
  });

  it("leaves other errors alone", () => {
    const bug = new TypeError("x is undefined");
    expect(asUserError(bug, "fix")).toBe(bug);
    expect(asUserError("text", "fix")).toBe("text");
  });
});
