import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirs } from "../../test/support/temp-files.ts";
import { filesUnder, type Manifest, manifestBytes, manifestFiles, manifestProblems, sha256Hex } from "./manifest.ts";

const temp = tempDirs("hexa-manifest-");

const bundleDir = (): { root: string; manifest: Manifest } => {
  const root = temp();
  mkdirSync(join(root, "banks"));
  writeFileSync(join(root, "episodes.jsonl"), '{"id":"a"}\n');
  writeFileSync(join(root, "banks", "round-00.json"), "{}\n");
  const manifest: Manifest = {
    schemaVersion: 1,
    kind: "hexa-bundle",
    run: "r",
    createdAt: "2026-01-01T00:00:00Z",
    files: manifestFiles(root, filesUnder(root)),
  };
  writeFileSync(join(root, "MANIFEST.json"), manifestBytes(manifest));
  return { root, manifest };
};

describe("a bundle's manifest", () => {
  it("lists every file but itself with its sha256 and size, and the files agree with it", () => {
    const { root, manifest } = bundleDir();
    expect(manifest.files).toEqual({
      "banks/round-00.json": { sha256: sha256Hex("{}\n"), bytes: 3 },
      "episodes.jsonl": { sha256: sha256Hex('{"id":"a"}\n'), bytes: 11 },
    });
    expect(manifestProblems(root, manifest)).toEqual([]);
  });

  it("names a file changed by one byte, a missing one and an added one", () => {
    const { root, manifest } = bundleDir();
    writeFileSync(join(root, "episodes.jsonl"), '{"id":"b"}\n');
    rmSync(join(root, "banks", "round-00.json"));
    writeFileSync(join(root, "extra.txt"), "x");
    const problems = manifestProblems(root, manifest);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^banks\/round-00\.json: listed in MANIFEST\.json but missing/);
    expect(problems[1]).toMatch(/^episodes\.jsonl: changed since packing/);
    expect(problems[2]).toMatch(/^extra\.txt: in the bundle but not in its MANIFEST\.json/);
  });

  it("names a file whose size in the manifest lies, even when its sha256 is right", () => {
    const { root, manifest } = bundleDir();
    const lying = { ...manifest, files: { ...manifest.files, "episodes.jsonl": { ...manifest.files["episodes.jsonl"]!, bytes: 12 } } };
    expect(manifestProblems(root, lying)).toEqual(["episodes.jsonl: 11 bytes, but MANIFEST.json says 12 bytes"]);
  });

  it("is written as the same bytes whatever the order its files were listed in", () => {
    const { manifest } = bundleDir();
    const reversed = { ...manifest, files: Object.fromEntries(Object.entries(manifest.files).reverse()) };
    expect(manifestBytes(reversed).equals(manifestBytes(manifest))).toBe(true);
  });
});
