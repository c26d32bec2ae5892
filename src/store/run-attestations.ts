import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

/**
 * What a run directory says about its own checking (docs/guides/publishing.md): `verification.json`, the last
 * `hexa verify` of the run, and `bundle.json`, the last `hexa bundle` of it. Both are notes beside the run,
 * never part of it (a bundle leaves them out); a damaged one is a notice, never a failed report.
 */

export const VERIFICATION_FILE = "verification.json";
export const BUNDLE_RECORD_FILE = "bundle.json";

const Count = z.number().int().min(0);
export const VerificationRecord = z.object({
  verifiedAt: z.string(),
  codeVersion: z.string().describe("the code that replayed the run, as hexa verify names it"),
  status: z.enum(["identical", "diverged", "cannot"]),
  counts: z.object({ episodes: Count, bankEvents: Count, modelExchanges: Count, trainings: Count, candidates: Count.optional() }),
  divergence: z
    .object({ what: z.string(), field: z.string(), recorded: z.unknown(), replayed: z.unknown() })
    .optional()
    .describe("the first difference found (status diverged), or what is missing (status cannot)"),
});
export type VerificationRecord = z.infer<typeof VerificationRecord>;

export const BundleRecord = z.object({
  schemaVersion: z.literal(1),
  file: z.string().describe("where hexa bundle wrote the bundle"),
  manifestHash: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: z.string(),
});
export type BundleRecord = z.infer<typeof BundleRecord>;

/** A parsed note, none (the file is absent), or why it could not be read. */
export type NoteRead<T> = { record: T; problem?: undefined } | { record?: undefined; problem?: string };

const readNote = <S extends z.ZodType>(dir: string, file: string, schema: S, what: string): NoteRead<z.infer<S>> => {
  const path = join(dir, file);
  if (!existsSync(path)) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    return { problem: `${file}: not valid JSON (${(e as Error).message.split("\n")[0]}); ${what} is not shown` };
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { record: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { problem: `${file}: not a record this hexa reads (${issue.path.join(".") || "(file)"}: ${issue.message}); ${what} is not shown` };
};

export const readVerification = (dir: string): NoteRead<VerificationRecord> => readNote(dir, VERIFICATION_FILE, VerificationRecord, "the last verification");
export const readBundleRecord = (dir: string): NoteRead<BundleRecord> => readNote(dir, BUNDLE_RECORD_FILE, BundleRecord, "the bundle's manifest hash");
