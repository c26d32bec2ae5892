import { createHmac, timingSafeEqual } from "node:crypto";
import { canonicalJson } from "../../util/canonical-json.ts";

/**
 * Job authentication (docs/security.md): the coordinator and every worker share a key (HEXA_JOB_KEY), and every
 * job carries an HMAC-SHA256 of its queue kind, its id and its data in canonical JSON, so that a job written
 * into Redis by anyone without the key is refused, and a signed job moved to another queue or id is too. A
 * worker's result carries one too, over the result, its job's queue and id, so that nobody without the key can
 * answer a job.
 */
const SIGNATURE_FIELD = "signature";

/** Shorter keys are refused: a key is guessed offline from any signed job an attacker can read. */
export const MIN_JOB_KEY_LENGTH = 16;

/** An HMAC-SHA256 as written: 64 lower-case hex digits, nothing else (Buffer.from(hex) would skip what does not parse). */
const SIGNATURE_TEXT = /^[0-9a-f]{64}$/;

const FIX = "set the same HEXA_JOB_KEY (or --job-key-file) on the coordinator and every worker";

/** What a result's signature covers beside the result: its job's queue, marked as a result so a job's signature is never one. */
const resultKind = (kind: string): string => `${kind}:result`;

const macOf = (key: string, kind: string, jobId: string, data: Record<string, unknown>): string => {
  const { [SIGNATURE_FIELD]: _, ...payload } = data;
  return createHmac("sha256", key)
    .update(canonicalJson({ kind, jobId, data: JSON.parse(JSON.stringify(payload)) as unknown }))
    .digest("hex");
};

const fieldsOf = (data: unknown): Record<string, unknown> =>
  data !== null && typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>) : {};

/** Whether `given` is exactly the signature of `fields` under `key`: 64 lower-case hex digits, compared in constant time. */
const signatureHolds = (key: string, kind: string, jobId: string, fields: Record<string, unknown>, given: string): boolean =>
  SIGNATURE_TEXT.test(given) && timingSafeEqual(Buffer.from(given, "hex"), Buffer.from(macOf(key, kind, jobId, fields), "hex"));

/**
 * `data` with the time it was signed (`signedAt`, covered by the signature: a worker refuses an old job, job-age.ts)
 * and its signature, or as it is when no key is set (a loopback Redis, docs/security.md).
 */
export const signJob = <T extends object>(key: string | undefined, kind: string, jobId: string, data: T, now = Date.now()): T => {
  if (!key) return data;
  const dated = { ...data, signedAt: new Date(now).toISOString() };
  return { ...dated, [SIGNATURE_FIELD]: macOf(key, kind, jobId, dated) };
};

/** Why a worker holding `key` (or none) must refuse this job's data, or null when its signature holds. */
export const signatureProblem = (key: string | undefined, kind: string, jobId: string, data: unknown): string | null => {
  const fields = fieldsOf(data);
  const given = fields[SIGNATURE_FIELD];
  if (!key) return given === undefined ? null : `job ${jobId}: the job is signed but this worker has no job key; ${FIX}`;
  if (typeof given !== "string") return `job ${jobId}: the job is not signed, and this worker takes signed jobs only; ${FIX}`;
  return signatureHolds(key, kind, jobId, fields, given) ? null : `job ${jobId}: the job's signature does not match this worker's job key; ${FIX}`;
};

/** A worker's result for job `jobId` of queue `kind`, signed with the job key; as it is when no key is set. */
export const signResult = <T extends object>(key: string | undefined, kind: string, jobId: string, result: T): T =>
  key ? { ...result, [SIGNATURE_FIELD]: macOf(key, resultKind(kind), jobId, { ...result } as Record<string, unknown>) } : result;

/**
 * Why a result read back from Redis must be refused for its signature, or null when it holds (or no key is set:
 * a loopback Redis). A result written by anyone without the key, or another job's result, is refused.
 */
export const resultSignatureProblem = (key: string | undefined, kind: string, jobId: string, result: unknown): string | null => {
  if (!key) return null;
  const fields = fieldsOf(result);
  const given = fields[SIGNATURE_FIELD];
  if (typeof given !== "string") return `job ${jobId}: signature: the result is not signed with the job key, so no worker holding the key wrote it; ${FIX}`;
  return signatureHolds(key, resultKind(kind), jobId, fields, given)
    ? null
    : `job ${jobId}: signature: the result's signature does not match the job key (written by someone without the key, or for another job); ${FIX}`;
};
