import { ConfigError } from "../../errors.ts";

/**
 * How old a signed job a worker still takes (docs/security.md, "The job key"): the signature covers the time it
 * was signed (`signedAt`), so a finished job that someone deletes and adds again with its signature is refused
 * once it is older than this. A day: the longest a job of a long run waits in its queue, since a coordinator
 * signs a job again whenever it queues it again (a resume, a failed job retried).
 */
export const DEFAULT_MAX_JOB_AGE_MS = 24 * 3600_000;

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3600_000, d: 86_400_000 };

/** `--max-job-age 24h` (s, m, h or d; a bare number is hours) → milliseconds; a ConfigError naming the flag otherwise. */
export const parseJobAge = (v: unknown): number => {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$/.exec(String(v));
  const ms = m ? Number(m[1]) * UNITS[m[2] || "h"]! : NaN;
  if (!Number.isFinite(ms) || ms < 60_000 || ms > 30 * UNITS.d!)
    throw new ConfigError(`--max-job-age: a duration from 1m to 30d, e.g. 24h or 90m (got ${JSON.stringify(v)})`);
  return ms;
};

/**
 * How far in the future a job's `signedAt` may lie: the clocks of the coordinator and a worker disagree a little.
 * A job signed further ahead would stay young past --max-job-age, so it is refused.
 */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

const shownAge = (ms: number): string => (ms >= 2 * UNITS.h! ? `${(ms / UNITS.h!).toFixed(1)} h` : `${Math.round(ms / 60_000)} min`);

/** Why a worker must refuse a signed job by its age (its `signedAt`, already covered by a valid signature), or null. */
export const jobAgeProblem = (jobId: string, data: unknown, maxAgeMs: number, now = Date.now()): string | null => {
  const signedAt = (data as { signedAt?: unknown } | null)?.signedAt;
  // Exactly as signJob writes it (Date.toISOString): Date.parse would take many other forms.
  const at = typeof signedAt === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(signedAt) ? Date.parse(signedAt) : NaN;
  if (!Number.isFinite(at)) return `job ${jobId}: signedAt: the job carries no signing time; run the same hexa version on the coordinator and every worker`;
  const age = now - at;
  if (-age > MAX_CLOCK_SKEW_MS)
    return `job ${jobId}: signedAt: the job says it was signed ${shownAge(-age)} in the future, beyond the ${shownAge(MAX_CLOCK_SKEW_MS)} the clocks of two machines may disagree; a job dated ahead to outlive --max-job-age is refused; check the coordinator's clock`;
  if (age <= maxAgeMs) return null;
  return `job ${jobId}: signedAt: the job was signed ${shownAge(age)} ago, older than this worker's maximum job age of ${shownAge(maxAgeMs)} (--max-job-age); a replayed job is refused; hexa run --resume queues its jobs again, freshly signed`;
};
