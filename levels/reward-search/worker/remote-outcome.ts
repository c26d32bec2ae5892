import { ConfigError } from "../../../src/errors.ts";
import { CachedOutcome } from "../trainer/cache.ts";
import type { PoolJob, PoolOutcome } from "../trainer/pool.ts";
import type { HelloMessage } from "../trainer/protocol.ts";
import { fitnessRangeOf, scoreProblem } from "../trainer/result-check.ts";

/** How a policy on another machine is named: never a path, so no file here is read or filmed by it. */
export const REMOTE_POLICY_PREFIX = "remote:";

/**
 * The policy path a worker's result names lies on the worker's machine: the coordinator records this marker
 * instead, so nothing here reads or films a local file by a name another machine chose (docs/security.md).
 */
const remotePolicy = (worker: string): string => `${REMOTE_POLICY_PREFIX}${worker.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 80) || "_"}`;

/**
 * A training's outcome as a worker handed it back through Redis, checked as the host checks a local trainer's
 * (trainer/result-check.ts): the full outcome schema, F on exactly the evaluation seeds sent and inside the
 * task's range; a job that needs the loss summary (`needsLosses`) a result that carries one (null: the trainer
 * reported no losses). Anyone who can write to Redis can write a result, so a failing one is a ConfigError naming
 * the job and the field, and nothing of it is recorded.
 */
export const checkRemoteOutcome = (jobId: string, job: PoolJob, raw: unknown, worker: string, hello: HelloMessage, needsLosses = false): PoolOutcome => {
  const parsed = CachedOutcome.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new ConfigError(`training job ${jobId}: worker ${worker}'s outcome: ${i.path.join(".") || "(outcome)"}: ${i.message}; the result was not recorded`);
  }
  const o = parsed.data;
  const cached = (raw as { cached?: unknown }).cached === true;
  if (o.kind === "error") return { kind: "error", error: o.error, cached, jobDir: null };
  const problem =
    scoreProblem(job, o.result, fitnessRangeOf(job.task, hello)) ??
    (needsLosses && o.losses === undefined ? "losses: missing; this search reads the training's PPO loss summary (run the same hexa on every worker)" : null);
  if (problem) throw new ConfigError(`training job ${jobId}: worker ${worker}'s result: ${problem}; the result was not recorded`);
  const losses = o.losses === undefined ? {} : { losses: o.losses };
  // Kept checkpoint policies lie on the worker too: each named by the marker (their own come with the result, kept-policies.ts).
  const { checkpointPolicies, ...rest } = o.result;
  const marked =
    job.keepPolicies && checkpointPolicies ? { checkpointPolicies: checkpointPolicies.map((c) => ({ step: c.step, policy: remotePolicy(worker) })) } : {};
  return { kind: "result", result: { ...rest, policy: remotePolicy(worker), ...marked }, ...losses, cached, jobDir: null };
};
