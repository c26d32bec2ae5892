import { closeSync, openSync, writeSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { Header } from "tar";

/** The zeros one gzip member carries: large enough for gzip's best ratio (about 1000:1), small enough to make in well under a second. */
const MEMBER_BYTES = 64 * 1024 ** 2;

const headerOf = (path: string, type: "Directory" | "File", size: number): Buffer => {
  const block = Buffer.alloc(512);
  new Header({ path, type, size, mode: type === "File" ? 0o644 : 0o755, mtime: new Date(0) }).encode(block);
  return block;
};

/**
 * A .tar.gz "bomb" written to `file` without ever holding its contents: one top folder `top/` and a file
 * `top/zeros` of `entryBytes` zeros (a multiple of 64 MiB). A gzip file may be a run of members (RFC 1952 §2.2),
 * so the zeros are one compressed 64 MiB member written again and again: 1 GiB costs ~1 MB on disk and a
 * fraction of a second to make. Returns the size of the archive.
 */
export const writeGzipBomb = (file: string, top: string, entryBytes: number): number => {
  if (entryBytes % MEMBER_BYTES !== 0) throw new Error(`writeGzipBomb: ${entryBytes} is not a multiple of ${MEMBER_BYTES}`);
  const zeros = gzipSync(Buffer.alloc(MEMBER_BYTES), { level: 9 });
  const fd = openSync(file, "w");
  let written = 0;
  const put = (b: Buffer) => (written += writeSync(fd, b));
  try {
    put(gzipSync(Buffer.concat([headerOf(`${top}/`, "Directory", 0), headerOf(`${top}/zeros`, "File", entryBytes)])));
    for (let i = 0; i < entryBytes / MEMBER_BYTES; i++) put(zeros);
    put(gzipSync(Buffer.alloc(1024)));
  } finally {
    closeSync(fd);
  }
  return written;
};
