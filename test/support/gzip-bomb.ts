import { closeSync, openSync, writeSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { Header } from "tar";

/** The bytes one gzip member carries: large enough for gzip's best ratio (about 1000:1), small enough to make fast. */
const MEMBER_BYTES = 64 * 1024 ** 2;

const headerOf = (path: string, type: "Directory" | "File", size: number): Buffer => {
  const block = Buffer.alloc(512);
  new Header({ path, type, size, mode: type === "File" ? 0o644 : 0o755, mtime: new Date(0) }).encode(block);
  return block;
};

/**
 * 64 MiB that gzip shrinks about `ratio` times: each 4 KiB holds 4096/ratio bytes that do not repeat (a
 * counter's digits hashed by hand) and zeros.
 */
const memberBody = (ratio: number | "zeros"): Buffer => {
  const body = Buffer.alloc(MEMBER_BYTES);
  if (ratio === "zeros") return body;
  const noisy = Math.ceil(4096 / ratio);
  let x = 2463534242;
  for (let at = 0; at < MEMBER_BYTES; at += 4096)
    for (let i = 0; i < noisy; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      body[at + i] = x & 0xff;
    }
  return body;
};

/**
 * A .tar.gz "bomb" written to `file` without holding its contents: one top folder `top/` and a file `top/big` of
 * `entryBytes` bytes (a multiple of 64 MiB), zeros or bytes that compress about `ratio` times. A gzip file may be
 * a run of members (RFC 1952 §2.2), so the body is one compressed 64 MiB member written again and again: 10 GiB
 * of zeros cost ~10 MB on disk and a fraction of a second to make. Returns the size of the archive.
 */
export const writeGzipBomb = (file: string, top: string, entryBytes: number, ratio: number | "zeros" = "zeros"): number => {
  if (entryBytes % MEMBER_BYTES !== 0) throw new Error(`writeGzipBomb: ${entryBytes} is not a multiple of ${MEMBER_BYTES}`);
  const member = gzipSync(memberBody(ratio), { level: ratio === "zeros" ? 9 : 1 });
  const fd = openSync(file, "w");
  let written = 0;
  const put = (b: Buffer) => (written += writeSync(fd, b));
  try {
    put(gzipSync(Buffer.concat([headerOf(`${top}/`, "Directory", 0), headerOf(`${top}/big`, "File", entryBytes)])));
    for (let i = 0; i < entryBytes / MEMBER_BYTES; i++) put(member);
    put(gzipSync(Buffer.alloc(1024)));
  } finally {
    closeSync(fd);
  }
  return written;
};
