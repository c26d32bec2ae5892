import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_JUDGMENT_BYTES, readJudgmentFolder } from "./judgment-folder.ts";

const root = mkdtempSync(join(tmpdir(), "hexa-judgment-folder-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const folder = (name: string): string => {
  const dir = join(root, name);
  mkdirSync(dir);
  return dir;
};

describe("a judgment folder read as a stranger's", () => {
  it("refuses a judgment.json over its bound, a link in its place, and one that is not JSON, naming the file", () => {
    const huge = folder("huge");
    writeFileSync(join(huge, "judgment.json"), Buffer.alloc(MAX_JUDGMENT_BYTES + 1, 0x20));
    expect(() => readJudgmentFolder(huge)).toThrow(`judgment.json: ${MAX_JUDGMENT_BYTES + 1} bytes, more than ${MAX_JUDGMENT_BYTES}`);
    const linked = folder("linked");
    writeFileSync(join(root, "elsewhere.json"), "{}");
    symlinkSync(join(root, "elsewhere.json"), join(linked, "judgment.json"));
    expect(() => readJudgmentFolder(linked)).toThrow("judgment.json: not a plain file");
    const text = folder("text");
    writeFileSync(join(text, "judgment.json"), "not json");
    expect(() => readJudgmentFolder(text)).toThrow("judgment.json: not JSON");
  });

  it("names the schema's first complaint by its field", () => {
    const bad = folder("bad");
    writeFileSync(join(bad, "judgment.json"), JSON.stringify({ schemaVersion: 1, task: "hopper", policy: "p", intent: null, judge: { kind: "shell" } }));
    expect(() => readJudgmentFolder(bad)).toThrow(/judgment\.json: judge\.kind: /);
  });
});
