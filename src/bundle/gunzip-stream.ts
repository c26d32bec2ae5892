import { type EventEmitter, once } from "node:events";
import { createReadStream } from "node:fs";
import { createGunzip } from "node:zlib";

/**
 * The decompression of a bundle that may come from anyone (docs/security.md): a piece at a time, each piece handed
 * on before the next is made, so that memory holds a few pieces whatever the archive says; and bounded, so that
 * a small file cannot unpack to a large one.
 */

/** The size of a read and of a decompressed piece: memory holds a few of each. */
const PIECE_BYTES = 64 * 1024;

export interface GunzipBounds {
  /** Most bytes the whole decompressed stream may have (its entries, their headers and padding). */
  streamBytes: number;
  /** Most decompressed bytes per compressed byte once past `ratioFloorBytes` (gzip's own best is about 1032). */
  ratio: number;
  /** Decompressed bytes allowed whatever the ratio: a small archive of repeated text compresses far. */
  ratioFloorBytes: number;
}

/** Where the decompressed bytes go: a tar parser (tar's `Parser` or `Unpack`). */
export type ByteSink = EventEmitter & { write(chunk: Buffer): boolean; end(): void };

/** What the reader of the stream says after each piece: go on, it has all it needs, or a refusal. */
export type Verdict = { go: true } | { go: false; refusal?: string };

/** Gzip's and zstd's magic numbers: a tar inside gzip never starts with them (tar's parser would unzip it again). */
const COMPRESSED_AGAIN = [Buffer.from([0x1f, 0x8b]), Buffer.from([0x28, 0xb5, 0x2f, 0xfd])];

const boundProblem = (out: number, read: number, b: GunzipBounds): string | undefined => {
  if (out > b.streamBytes) return `more than ${b.streamBytes} bytes once decompressed`;
  if (out > b.ratioFloorBytes && out > b.ratio * read)
    return `${out} bytes decompressed from the first ${read}: more than ${b.ratio} times its compressed size`;
  return undefined;
};

/**
 * Decompresses the gzip `file` into `sink`, a piece at a time; after each piece `verdict(decompressedBytes)` says
 * whether to go on. Returns the refusal that stopped it (a bound of `bounds` or the verdict's; the sink is then left
 * unended), or undefined once the sink has ended: the stream ended, or the verdict had all it needed. A file that
 * is no gzip or is cut short, and an error of the sink, throw.
 */
export const gunzipInto = async (file: string, sink: ByteSink, bounds: GunzipBounds, verdict: (out: number) => Verdict): Promise<string | undefined> => {
  const source = createReadStream(file, { highWaterMark: PIECE_BYTES });
  let out = 0;
  let failed: unknown;
  sink.on("error", (e) => (failed ??= e));
  const gunzip = createGunzip({ chunkSize: PIECE_BYTES });
  source.on("error", (e) => gunzip.destroy(e));
  try {
    for await (const piece of source.pipe(gunzip) as AsyncIterable<Buffer>) {
      if (out === 0 && COMPRESSED_AGAIN.some((m) => piece.subarray(0, m.length).equals(m))) return "an archive compressed twice";
      out += piece.length;
      const problem = boundProblem(out, source.bytesRead, bounds);
      if (problem) return problem;
      // events.once rejects when the sink emits "error" meanwhile.
      if (!sink.write(piece) && failed === undefined) await once(sink, "drain");
      if (failed !== undefined) throw failed;
      const v = verdict(out);
      if (!v.go && v.refusal !== undefined) return v.refusal;
      if (!v.go) break;
    }
  } finally {
    source.destroy();
    gunzip.destroy();
  }
  sink.end();
  if (failed !== undefined) throw failed;
  return undefined;
};
