import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { create as createTar } from "tar";
import { describe, expect, it } from "vitest";
import { tempDirs } from "../../test/support/temp-files.ts";
import { ConfigError } from "../errors.ts";
import { BUNDLE_LIMITS, extractBundle } from "./safe-extract.ts";

const temp = tempDirs("hexa-extract-");

interface RawEntry {
  path: string;
  /** ustar type flag: 0 file, 1 hard link, 2 symbolic link, 3 character device, 5 folder. */
  type?: "0" | "1" | "2" | "3" | "5";
  body?: string;
  linkpath?: string;
}

/** A ustar header written by hand, so an archive can hold what no well-behaved packer writes. */
const header = (e: RawEntry, size: number): Buffer => {
  const h = Buffer.alloc(512);
  const put = (text: string, at: number, len: number) => h.write(text.slice(0, len), at, len, "utf8");
  const octal = (n: number, len: number) => `${n.toString(8).padStart(len - 1, "0")}\0`;
  put(e.path, 0, 100);
  put(octal(0o644, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(0, 12), 136, 12);
  put("        ", 148, 8);
  put(e.type ?? "0", 156, 1);
  put(e.linkpath ?? "", 157, 100);
  put("ustar\0", 257, 6);
  put("00", 263, 2);
  const sum = h.reduce((s, b) => s + b, 0);
  put(`${sum.toString(8).padStart(6, "0")}\0 `, 148, 8);
  return h;
};

/** The tar bytes of raw entries. */
const tarOf = (entries: readonly RawEntry[]): Buffer => {
  const parts = entries.flatMap((e) => {
    const body = Buffer.from(e.body ?? "");
    const padded = Buffer.alloc(Math.ceil(body.length / 512) * 512);
    body.copy(padded);
    return [header(e, body.length), padded];
  });
  return Buffer.concat([...parts, Buffer.alloc(1024)]);
};

const written = (bytes: Buffer): string => {
  const file = join(temp(), "bundle.tar.gz");
  writeFileSync(file, bytes);
  return file;
};

/** A .tar.gz of raw entries, written to a file. */
const archive = (entries: readonly RawEntry[]): string => written(gzipSync(tarOf(entries)));

/** Extracts into a fresh folder inside a parent of its own, so anything written beside it shows. */
const extractIn = async (file: string, limits = BUNDLE_LIMITS) => {
  const parent = temp();
  const dest = join(parent, "dest");
  mkdirSync(dest);
  let error: unknown;
  try {
    await extractBundle(file, dest, limits);
  } catch (e) {
    error = e;
  }
  return { error, parent, dest };
};

const refused = async (file: string, what: RegExp, limits = BUNDLE_LIMITS) => {
  const { error, parent, dest } = await extractIn(file, limits);
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as Error).message).toMatch(what);
  expect(readdirSync(parent)).toEqual(["dest"]);
  expect(readdirSync(dest)).toEqual([]);
};

describe("extracting a bundle from anyone", () => {
  it("unpacks a plain archive of one top folder and returns that folder", async () => {
    const file = archive([
      { path: "run/", type: "5" },
      { path: "run/a.txt", body: "hello" },
    ]);
    const dest = temp();
    expect(await extractBundle(file, dest)).toBe(join(dest, "run"));
    expect(readFileSync(join(dest, "run", "a.txt"), "utf8")).toBe("hello");
  });

  it("refuses a symbolic link, a hard link and a device, naming the entry, and writes nothing", async () => {
    await refused(
      archive([
        { path: "run/a.txt", body: "x" },
        { path: "run/passwd", type: "2", linkpath: "/etc/passwd" },
      ]),
      /"run\/passwd": a SymbolicLink entry/,
    );
    await refused(
      archive([
        { path: "run/a.txt", body: "x" },
        { path: "run/h", type: "1", linkpath: "run/a.txt" },
      ]),
      /"run\/h": a Link entry/,
    );
    await refused(archive([{ path: "run/tty", type: "3" }]), /"run\/tty": a CharacterDevice entry/);
  });

  it("refuses an absolute path and a path with .. that would write outside the folder", async () => {
    await refused(archive([{ path: "/tmp/hexa-evil.txt", body: "x" }]), /"\/tmp\/hexa-evil\.txt": an absolute path/);
    await refused(
      archive([
        { path: "run/a.txt", body: "x" },
        { path: "run/../../evil.txt", body: "x" },
      ]),
      /"run\/\.\.\/\.\.\/evil\.txt": a path with/,
    );
    expect(existsSync("/tmp/hexa-evil.txt")).toBe(false);
  });

  it("refuses a second top folder, an archive with nothing in it and one that is no tar.gz", async () => {
    await refused(
      archive([
        { path: "run/a.txt", body: "x" },
        { path: "other/b.txt", body: "y" },
      ]),
      /"other\/b\.txt": outside the bundle's one top folder run\//,
    );
    await refused(archive([]), /an empty archive|not a readable \.tar\.gz/);
    const junk = join(temp(), "junk.tar.gz");
    writeFileSync(junk, "not an archive at all");
    await refused(junk, /not a readable \.tar\.gz/);
  });

  it("refuses an entry over the size cap, an archive over the total cap, too many entries and too deep a path", async () => {
    const small = { ...BUNDLE_LIMITS, entryBytes: 10, totalBytes: 15, entries: 3, depth: 2 };
    await refused(archive([{ path: "run/big", body: "x".repeat(11) }]), /"run\/big": 11 bytes, over the 10/, small);
    await refused(
      archive([
        { path: "run/a", body: "x".repeat(8) },
        { path: "run/b", body: "x".repeat(8) },
      ]),
      /more than 15 bytes in all/,
      small,
    );
    await refused(archive(["a", "b", "c", "d"].map((n) => ({ path: `run/${n}`, body: "" }))), /more than 3 entries/, small);
    await refused(archive([{ path: "run/1/2/3/f", body: "" }]), /deeper than 2 folders/, small);
  });

  it("refuses a path given twice, and a tar compressed twice", async () => {
    await refused(
      archive([
        { path: "run/a.txt", body: "first" },
        { path: "run/a.txt", body: "second" },
      ]),
      /"run\/a\.txt": a second entry of the same path/,
    );
    await refused(written(gzipSync(gzipSync(tarOf([{ path: "run/a.txt", body: "x" }])))), /an archive compressed twice/);
  });

  it("refuses an entry from its header, before a byte of its body is read", async () => {
    // The archive stops right after the header: a refusal that waited for the body would say "cut short".
    const headerOnly = written(gzipSync(header({ path: "run/huge" }, 6 * 1024 ** 3)));
    await refused(headerOnly, /"run\/huge": 6442450944 bytes, over the 4294967296 a bundle entry may have/);
  });

  it("refuses an archive that decompresses beyond the ratio bound once past its floor, naming the entry being read", async () => {
    const zeros = { path: "run/zeros", body: "\0".repeat(4 * 1024 ** 2) };
    const limits = { ...BUNDLE_LIMITS, ratioFloorBytes: 1024 ** 2 };
    await refused(archive([{ path: "run/a.txt", body: "x" }, zeros]), /"run\/zeros": \d+ bytes decompressed from the first \d+: more than 200 times/, limits);
    const { error } = await extractIn(archive([{ path: "run/a.txt", body: "x" }, zeros]));
    expect(error).toBeUndefined();
  });

  it("refuses a path over 1024 characters, naming it cut short", async () => {
    const root = temp();
    const deep = join("run", ..."abcde".split("").map((c) => c.repeat(250)));
    mkdirSync(join(root, deep), { recursive: true });
    writeFileSync(join(root, deep, "f.txt"), "x");
    const file = join(temp(), "long.tar.gz");
    await createTar({ gzip: true, file, cwd: root, portable: true }, ["run"]);
    await refused(file, /"run\/a{196}"…: a path of 1259 characters, over 1024\)/);
  });
});
