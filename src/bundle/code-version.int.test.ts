import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirs } from "../../test/support/temp-files.ts";
import { codeDifferences, codeVersionOf, type CodeVersionRecord } from "./code-version.ts";
import { sha256Hex } from "./manifest.ts";

const temp = tempDirs("hexa-code-version-");

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.email=t@example.org", "-c", "user.name=t", "-c", "commit.gpgsign=false", ...args], { cwd, stdio: "pipe" });

/** A checkout of a tiny hexa: package.json, a lockfile, one source file and its test, committed. */
const checkout = (): string => {
  const root = temp();
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "package.json"), '{"version":"9.9.9"}\n');
  writeFileSync(join(root, "package-lock.json"), "{}\n");
  writeFileSync(join(root, "src", "a.ts"), "export const a = 1;\n");
  writeFileSync(join(root, "src", "a.test.ts"), "test\n");
  writeFileSync(join(root, "README.md"), "docs\n");
  git(root, "init", "-q");
  git(root, "add", ".");
  git(root, "commit", "-q", "-m", "one");
  return root;
};

describe("a checkout's code version", () => {
  it("records the commit, the lockfile's hash, Node and each source file's sha256 (tests and docs are no code); clean: no uncommitted hash", () => {
    const root = checkout();
    const v = codeVersionOf(root);
    expect(v.commit).toBe(git(root, "rev-parse", "HEAD").toString().trim());
    expect(v.version).toBe("9.9.9");
    expect(v.lockfileSha256).toBe(sha256Hex("{}\n"));
    expect(v.node).toBe(process.version);
    expect(v.files).toEqual({ "package.json": sha256Hex('{"version":"9.9.9"}\n'), "src/a.ts": sha256Hex("export const a = 1;\n") });
    expect(v.uncommittedSha256).toBeNull();
  });

  it("hashes an uncommitted edit and an untracked source file, and lists the file as it is on disk", () => {
    const root = checkout();
    writeFileSync(join(root, "src", "a.ts"), "export const a = 2;\n");
    const edited = codeVersionOf(root);
    expect(edited.uncommittedSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(edited.files["src/a.ts"]).toBe(sha256Hex("export const a = 2;\n"));
    writeFileSync(join(root, "src", "b.ts"), "export const b = 1;\n");
    const added = codeVersionOf(root);
    expect(added.files["src/b.ts"]).toBe(sha256Hex("export const b = 1;\n"));
    expect(added.uncommittedSha256).not.toBe(edited.uncommittedSha256);
  });
});

const record = (files: Record<string, string>, more: Partial<CodeVersionRecord> = {}): CodeVersionRecord => ({
  schemaVersion: 1,
  version: "1",
  commit: "c1",
  uncommittedSha256: null,
  lockfileSha256: "l".repeat(64),
  node: "v20.0.0",
  files,
  ...more,
});

describe("what differs between the code that ran and this checkout", () => {
  it("is one line per changed, removed or added file (changed first), the lockfile and the Node version", () => {
    const ran = record({ "src/a.ts": "1", "src/gone.ts": "2", "src/same.ts": "3" });
    const here = record({ "src/a.ts": "9", "src/new.ts": "4", "src/same.ts": "3" }, { node: "v22.1.0", lockfileSha256: "m".repeat(64) });
    expect(codeDifferences(ran, here)).toEqual([
      "Node v20.0.0 ran it; this is Node v22.1.0",
      "package-lock.json: other dependency versions",
      "src/a.ts: changed",
      "src/gone.ts: only in the code that ran",
      "src/new.ts: only in this checkout",
    ]);
  });

  it("is nothing when every file agrees, even at another commit (a change to docs or tests only)", () => {
    expect(codeDifferences(record({ "src/a.ts": "1" }), record({ "src/a.ts": "1" }, { commit: "c2" }))).toEqual([]);
  });

  it("is cut after forty lines with how many more differ", () => {
    const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`src/f${String(i).padStart(2, "0")}.ts`, "1"]));
    const lines = codeDifferences(record(many), record({}));
    expect(lines).toHaveLength(41);
    expect(lines.at(-1)).toBe("… and 20 more");
  });
});
