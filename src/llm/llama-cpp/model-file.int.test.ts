import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeTinyGguf } from "../../../test/support/tiny-gguf.ts";
import { tempDirs } from "../../../test/support/temp-files.ts";
import { ConfigError } from "../../errors.ts";
import { openModelFile } from "./model-file.ts";
import { embeddedServedRole, ggufServedOf } from "./served.ts";

const tempDir = tempDirs("hexa-gguf-");
const WHERE = "llm.actor.model";

const refusal = async (path: string): Promise<string> => {
  const e = await openModelFile(path, WHERE).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ConfigError);
  return (e as Error).message;
};

/** A GGUF header claiming `keys` metadata keys, and nothing after it. */
const headerOnly = (path: string, keys: bigint, tensors = 0n) => {
  const b = Buffer.alloc(24);
  b.write("GGUF", 0, "latin1");
  b.writeUInt32LE(3, 4);
  b.writeBigUInt64LE(tensors, 8);
  b.writeBigUInt64LE(keys, 16);
  writeFileSync(path, b);
};

describe("openModelFile", () => {
  it("reads a generated model's metadata", async () => {
    const path = writeTinyGguf(tempDir());
    const file = await openModelFile(path, WHERE);
    expect(file.info.metadata.general.architecture).toBe("llama");
    expect(file.info.metadata.tokenizer.chat_template).toContain("<|im_start|>");
  });

  it.each([
    ["a file that is not .gguf", (d: string) => writeFileSync(join(d, "m.bin"), "x"), "m.bin", "not a .gguf file"],
    ["a missing file", () => undefined, "gone.gguf", "cannot be read (ENOENT)"],
    ["a folder", (d: string) => mkdirSync(join(d, "dir.gguf")), "dir.gguf", "not a regular file"],
    ["a file without the magic", (d: string) => writeFileSync(join(d, "t.gguf"), "hello, not a model at all"), "t.gguf", "not a GGUF file"],
    ["a header with a huge key count", (d: string) => headerOnly(join(d, "k.gguf"), 2n ** 40n), "k.gguf", "metadata keys"],
    ["a header with a huge tensor count", (d: string) => headerOnly(join(d, "t.gguf"), 1n, 2n ** 40n), "t.gguf", "tensors"],
    ["a file cut after its header", (d: string) => headerOnly(join(d, "c.gguf"), 3n), "c.gguf", "no general.architecture"],
  ])("refuses %s, naming the field and the path", async (_, make, name, what) => {
    const d = tempDir();
    make(d);
    const message = await refusal(join(d, name));
    expect(message).toContain(WHERE);
    expect(message).toContain(name);
    expect(message).toContain(what);
  });

  it("refuses an unreadable file", async () => {
    const path = writeTinyGguf(tempDir());
    chmodSync(path, 0o000);
    // root reads any file: the check only holds for another user.
    if (process.getuid?.() === 0) return;
    expect(await refusal(path)).toContain("EACCES");
  });

  it("refuses one part of a split model rather than open the parts its metadata names", async () => {
    const d = tempDir();
    const path = writeTinyGguf(d, { extraMetadata: [["split.count", "u32", 3]] });
    expect(await refusal(path)).toContain("split into 3 files");
  });

  it("refuses a chat template longer than the bound", async () => {
    const path = writeTinyGguf(tempDir(), { chatTemplate: "x".repeat(300 * 1024) });
    expect(await refusal(path)).toContain("chat template is 307200 characters");
  });

  it("resolves links to the file they name: two paths to one model are one model", async () => {
    const d = tempDir();
    const path = writeTinyGguf(d);
    symlinkSync(path, join(d, "link.gguf"));
    expect((await openModelFile(join(d, "link.gguf"), WHERE)).realPath).toBe((await openModelFile(path, WHERE)).realPath);
  });
});

describe("the served-model record", () => {
  it("records the file's sha256, architecture, quantisation, parameters and trained context", async () => {
    const path = writeTinyGguf(tempDir(), { embd: 32, layers: 1, contextLength: 512, name: "rec" });
    const gguf = await ggufServedOf(await openModelFile(path, WHERE));
    const vocab = 259;
    const params = 2 * 32 * vocab + 32 + (32 + 4 * 32 * 32 + 32 + 3 * 32 * 64);
    expect(gguf).toEqual({
      sha256: createHash("sha256").update(readFileSync(path)).digest("hex"),
      bytes: readFileSync(path).length,
      architecture: "llama",
      name: "rec",
      quantisation: "F32",
      parameters: params,
      trainedContext: 512,
    });
    const role = embeddedServedRole(path, gguf, new Date("2026-01-02T03:04:05Z"));
    expect(role).toMatchObject({ requested: path, served: "rec", fingerprint: `sha256:${gguf.sha256}`, checkedAt: "2026-01-02T03:04:05.000Z" });
  });

  it("gives another fingerprint for another file of the same name", async () => {
    const a = await ggufServedOf(await openModelFile(writeTinyGguf(tempDir(), { seed: 1 }), WHERE));
    const b = await ggufServedOf(await openModelFile(writeTinyGguf(tempDir(), { seed: 2 }), WHERE));
    expect(a.sha256).not.toBe(b.sha256);
    expect({ ...a, sha256: "" }).toEqual({ ...b, sha256: "" });
  });
});
