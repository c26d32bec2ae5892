import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { z } from "zod";
import { ConfigError, InvariantError } from "../../../src/errors.ts";
import { writeAtomic } from "../../../src/util/write-atomic.ts";
import { TrajectoryHeaderSchema } from "./header-schema.ts";
import { COLUMN_FIELDS, columnWidths, INITIAL_FIELDS, MAX_TRAJECTORY_BYTES, numberBytes } from "./layout.ts";
import type { TrajectoryColumns, TrajectoryHeader, TrajectoryRecord } from "./record.ts";

/**
 * A trajectory on disk (docs/spec/trajectory.md): the 8 bytes `hexatraj`, the header's length as a
 * little-endian uint32, the header as JSON (padded with spaces so the numbers start at a multiple of 8),
 * then every value as a little-endian float64: the initial rows (INITIAL_FIELDS order), then each per-step
 * field whole (COLUMN_FIELDS order, the end flags as 0 / 1). Reading one checks everything against the
 * header before a number is used (docs/security.md: a file from elsewhere is bounded and parsed on read).
 */

const MAGIC = "hexatraj";
const PREAMBLE = 12;
const MAX_HEADER_BYTES = 2 ** 20;
const MAX_FILE_BYTES = PREAMBLE + MAX_HEADER_BYTES + MAX_TRAJECTORY_BYTES;

const Envelope = z.strictObject({
  format: z.literal("hexa-trajectory"),
  version: z.literal(1),
  steps: z
    .number()
    .int()
    .min(1)
    .max(MAX_TRAJECTORY_BYTES / 8),
  header: TrajectoryHeaderSchema,
});

/** A field and what is wrong with it. */
class Problem extends Error {
  constructor(
    readonly field: string,
    what: string,
  ) {
    super(`${field}: ${what}`);
  }
}

/** The first thing wrong with a record's numbers (lengths, finiteness, end flags), as a Problem. */
const numbersProblem = (r: TrajectoryRecord): Problem | null => {
  const w = columnWidths(r.header);
  for (const f of INITIAL_FIELDS) {
    const a = r.initial[f];
    if (a.length !== w[f]) return new Problem(`initial.${f}`, `${a.length} values where the header's sizes give ${w[f]}`);
    const bad = a.findIndex((v) => !Number.isFinite(v));
    if (bad >= 0) return new Problem(`initial.${f}`, `value ${bad} is ${a[bad]}, not a finite number`);
  }
  for (const f of COLUMN_FIELDS) {
    const a = r.columns[f];
    if (a.length !== r.steps * w[f]) return new Problem(`columns.${f}`, `${a.length} values where ${r.steps} steps × ${w[f]} give ${r.steps * w[f]}`);
    const bad = (a as Float64Array).findIndex((v) => !Number.isFinite(v));
    if (bad >= 0) return new Problem(`columns.${f}`, `row ${Math.floor(bad / w[f])} holds ${a[bad]}, not a finite number`);
  }
  for (const f of ["terminated", "truncated"] as const) {
    const flags = r.columns[f];
    const bad = flags.findIndex((v, t) => v !== 0 && (v !== 1 || t < r.steps - 1));
    if (bad >= 0) return new Problem(`columns.${f}`, `row ${bad} holds ${flags[bad]}; only the last step may end the episode (0 or 1)`);
  }
  return null;
};

const headerText = (r: TrajectoryRecord): Uint8Array => {
  const json = JSON.stringify({ format: "hexa-trajectory", version: 1, steps: r.steps, header: r.header });
  const bytes = Buffer.from(json, "utf8");
  const padded = Buffer.alloc(bytes.length + ((8 - ((PREAMBLE + bytes.length) % 8)) % 8), " ");
  bytes.copy(padded);
  return padded;
};

/** A record as the bytes of its file; a record that breaks the format is a hexa bug, named by field. */
export const encodeTrajectory = (r: TrajectoryRecord): Uint8Array => {
  const header = TrajectoryHeaderSchema.safeParse(r.header);
  if (!header.success) throw new InvariantError(`trajectory: header.${header.error.issues[0]!.path.join(".")}: ${header.error.issues[0]!.message}`);
  const p = numbersProblem(r);
  if (p) throw new InvariantError(`trajectory of ${r.header.task}: ${p.message}`);
  const text = headerText(r);
  const out = new Uint8Array(PREAMBLE + text.length + numberBytes(r.header, r.steps));
  if (out.length > MAX_FILE_BYTES)
    throw new InvariantError(`trajectory of ${r.header.task}: steps: ${out.length} bytes, over the ${MAX_FILE_BYTES}-byte bound`);
  const view = new DataView(out.buffer);
  out.set(Buffer.from(MAGIC, "ascii"));
  view.setUint32(8, text.length, true);
  out.set(text, PREAMBLE);
  let off = PREAMBLE + text.length;
  for (const a of [...INITIAL_FIELDS.map((f) => r.initial[f]), ...COLUMN_FIELDS.map((f) => r.columns[f])])
    for (const v of a) {
      view.setFloat64(off, v, true);
      off += 8;
    }
  return out;
};

/** The header of a file's bytes, checked: where it ends and what it says. */
const decodeHeader = (bytes: Uint8Array): { end: number; steps: number; header: TrajectoryHeader } => {
  if (bytes.length < PREAMBLE) throw new Problem("file", `${bytes.length} bytes, shorter than the ${PREAMBLE}-byte preamble`);
  if (Buffer.from(bytes.subarray(0, 8)).toString("latin1") !== MAGIC) throw new Problem("magic", `does not start with "${MAGIC}"`);
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(8, true);
  if (length > MAX_HEADER_BYTES) throw new Problem("header length", `${length} bytes, over the ${MAX_HEADER_BYTES}-byte bound`);
  if (PREAMBLE + length > bytes.length) throw new Problem("header length", `${length} bytes run past the file's end (${bytes.length} bytes)`);
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(PREAMBLE, PREAMBLE + length)));
  } catch (e) {
    throw new Problem("header", `not JSON text (${(e as Error).message})`);
  }
  const parsed = Envelope.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Problem(issue.path.join(".") || "header", issue.message);
  }
  return { end: PREAMBLE + length, ...parsed.data };
};

/** A file's bytes as a record, every field checked; a Problem names the first field that is wrong. */
const decode = (bytes: Uint8Array): TrajectoryRecord => {
  const { end, steps, header } = decodeHeader(bytes);
  const need = end + numberBytes(header, steps);
  if (bytes.length !== need)
    throw new Problem(
      "size",
      `${bytes.length} bytes where the header (nq ${header.nq}, nv ${header.nv}, nbody ${header.nbody}, obsDim ${header.obsDim}, actionDim ${header.actionDim}, ${header.terms.length} terms, ${steps} steps) needs ${need}`,
    );
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const w = columnWidths(header);
  let off = end;
  const take = (n: number): Float64Array => {
    const a = new Float64Array(n);
    for (let k = 0; k < n; k++, off += 8) a[k] = view.getFloat64(off, true);
    return a;
  };
  const initial = Object.fromEntries(INITIAL_FIELDS.map((f) => [f, take(w[f])])) as TrajectoryRecord["initial"];
  const columns = Object.fromEntries(COLUMN_FIELDS.map((f) => [f, take(steps * w[f])])) as unknown as TrajectoryColumns;
  const record = { header, initial, steps, columns };
  const p = numbersProblem(record);
  if (p) throw p;
  return { ...record, columns: { ...columns, terminated: Uint8Array.from(columns.terminated), truncated: Uint8Array.from(columns.truncated) } };
};

/** Bytes from a stranger as a record, refused with a ConfigError naming `where` and the field. */
export const decodeTrajectory = (bytes: Uint8Array, where: string): TrajectoryRecord => {
  try {
    return decode(bytes);
  } catch (e) {
    if (e instanceof Problem) throw new ConfigError(`${where}: ${e.message}; not a trajectory file this hexa reads`);
    throw e;
  }
};

export const writeTrajectoryFile = (path: string, r: TrajectoryRecord): void => writeAtomic(path, encodeTrajectory(r));

/** Read a trajectory file: a file over the bound, or not a plain file, is refused before it is read. */
export const readTrajectoryFile = (path: string): TrajectoryRecord => {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    throw new ConfigError(`${path}: cannot open the trajectory file (${(e as Error).message}); give a trajectory-<seed>.bin a recording wrote`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new ConfigError(`${path}: not a plain file; give a trajectory-<seed>.bin a recording wrote`);
    if (stat.size > MAX_FILE_BYTES)
      throw new ConfigError(`${path}: file size: ${stat.size} bytes, over the ${MAX_FILE_BYTES}-byte bound of a trajectory file; not read`);
    const bytes = Buffer.alloc(stat.size);
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(fd, bytes, got, bytes.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return decodeTrajectory(bytes.subarray(0, got), path);
  } finally {
    closeSync(fd);
  }
};
