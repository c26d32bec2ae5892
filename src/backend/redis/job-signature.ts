import { createHmac, timingSafeEqual } from "node:crypto";
import { canonicalJson } from "../../util/canonical-json.ts";

/**
 * Job authentication (docs/security.md): the coordinator and every worker share a key (HEXA_JOB_KEY), and every
 * job carries an HMAC-SHA256 of its queue kind, its id and its data in canonical JSON, so that a job written
 * into Redis by anyone without the key is refused, and a signed job moved to another queue or id is too.
 */
const SIGNATURE_FIELD = "signature";

/** Shorter keys are refused: a key is guessed offline from any signed job an attacker can read. */
export const MIN_JOB_KEY_LENGTH = 16;

const FIX = "set the same HEXA_JOB_KEY (or --job-key-file) on the coordinator and every worker";

const macOf = (key: string, kind: string, jobId: string, data: Record<string, unknown>): string => {
  const { [SIGNATURE_FIELD]: _, ...payload } = data;
  return createHmac("sha256", key)
    .update(canonicalJson({ kind, jobId, data: JSON.parse(JSON.stringify(payload)) as unknown }))
    .digest("hex");
};

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
  const fields = data !== null && typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  const given = fields[SIGNATURE_FIELD];
  if (!key) return given === undefined ? null : `job ${jobId}: the job is signed but this worker has no job key; ${FIX}`;
  if (typeof given !== "string") return `job ${jobId}: the job is not signed, and this worker takes signed jobs only; ${FIX}`;
  const want = Buffer.from(macOf(key, kind, jobId, fields), "hex");
  const got = Buffer.from(given, "hex");
  return got.length === want.length && timingSafeEqual(got, want) ? null : `job ${jobId}: the job's signature does not match this worker's job key; ${FIX}`;
};
