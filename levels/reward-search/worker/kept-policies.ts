/**
 * The policies a training kept (`keepPolicies`: the final one and one per checkpoint evaluation) carried back
 * through Redis with the training's result, so that the lead can roll out and judge them: on a worker they lie on
 * the worker's machine. The worker reads its own files; the lead checks every policy against the network the job
 * asked for (the task's observation and action sizes, the job's hidden width: its bytes are then exactly that
 * network's), the sha256 the signed result gives of its parameters, and writes each in a job folder of its own,
 * under names it chooses (docs/security.md: nothing in a result names a file here).
 */
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { ConfigError } from "../../../src/errors.ts";
import { writeJsonAtomic } from "../../../src/store/jsonl.ts";
import { readPolicyFile } from "../pictures/rollout-gif.ts";
import { PpoConfig, type TaskInstance } from "../task.ts";
import { getTask, listTasks } from "../tasks/index.ts";
import type { JobResult } from "../trainer/client.ts";
import { policyLayout, type SerializedPolicy } from "../trainer/policy.ts";
import type { PoolJob } from "../trainer/pool.ts";

/** Checkpoint policies a result may carry at most (as the trainer protocol's `checkpointPolicies`). */
const MAX_KEPT_POLICIES = 64;

const finite = z.number().refine(Number.isFinite, "must be a finite number");
const hex64 = z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lower-case hex digits");
/** The widest network whose policy the lead takes (64-wide by default; the bound only keeps a field's size sane before the exact check). */
const MAX_HIDDEN = 4096;
const MAX_DIM = 100_000;

const Policy = z.strictObject({
  format: z.literal("hexa-ppo-mlp"),
  version: z.literal(1),
  obsDim: z.number().int().min(1).max(MAX_DIM),
  action: z.discriminatedUnion("kind", [
    z.strictObject({ kind: z.literal("discrete"), n: z.number().int().min(1).max(MAX_DIM) }),
    z.strictObject({
      kind: z.literal("continuous"),
      dim: z.number().int().min(1).max(MAX_DIM),
      low: z.array(finite).max(MAX_DIM),
      high: z.array(finite).max(MAX_DIM),
    }),
  ]),
  hidden: z.number().int().min(1).max(MAX_HIDDEN),
  shared: z.boolean(),
  obsNorm: z.strictObject({ mean: z.array(finite).max(MAX_DIM), var: z.array(finite.min(0)).max(MAX_DIM) }).nullable(),
  params: z.string(),
});

const KeptPolicy = z.strictObject({ sha256: hex64, policy: Policy });
const KeptCheckpoint = KeptPolicy.extend({ step: z.number().int().min(0) });

/** What a worker hands back beside a training that kept its policies. */
const KeptPolicies = z.strictObject({ final: KeptPolicy, checkpoints: z.array(KeptCheckpoint).max(MAX_KEPT_POLICIES) });
type KeptPolicies = z.infer<typeof KeptPolicies>;
/** The same as a worker writes it (its policies as the trainer serialised them). */
type KeptPoliciesOut = { final: { sha256: string; policy: SerializedPolicy }; checkpoints: { step: number; sha256: string; policy: SerializedPolicy }[] };

/** The sha256 of a policy's parameters (the bytes its base64 holds). */
export const paramsSha256 = (params: string): string => createHash("sha256").update(Buffer.from(params, "base64")).digest("hex");

const kept = (path: string) => {
  const { policy } = readPolicyFile(path);
  return { sha256: paramsSha256(policy.params), policy };
};

/** On the worker: the policies its own trainer kept for this result, read from its own job folder. */
export const readKeptPolicies = (r: Pick<JobResult, "policy" | "checkpointPolicies">): KeptPoliciesOut => ({
  final: kept(r.policy),
  checkpoints: (r.checkpointPolicies ?? []).map((c) => ({ step: c.step, ...kept(c.policy) })),
});

/** The base64 length of `bytes` bytes. */
const base64Length = (bytes: number): number => 4 * Math.ceil(bytes / 3);

/** Why a policy is not of the network the job trains (`field: problem`), or null. */
const shapeProblem = (job: PoolJob, k: z.infer<typeof KeptPolicy>): string | null => {
  const task = getTask(job.task);
  const p = k.policy;
  const hidden = PpoConfig.parse({ ...task.training.ppo, ...job.ppo }).hidden;
  const outDim = p.action.kind === "discrete" ? p.action.n : p.action.dim;
  if (p.obsDim !== task.observation.length) return `policy.obsDim: ${p.obsDim}, not task ${task.id}'s ${task.observation.length} observation values`;
  if (outDim !== task.actionNames.length) return `policy.action: ${outDim} actions, not task ${task.id}'s ${task.actionNames.length}`;
  if (p.action.kind === "continuous" && (p.action.low.length !== outDim || p.action.high.length !== outDim))
    return `policy.action: low and high must have ${outDim} values`;
  if (p.hidden !== hidden) return `policy.hidden: ${p.hidden}, not the job's ${hidden}`;
  if (p.obsNorm && (p.obsNorm.mean.length !== p.obsDim || p.obsNorm.var.length !== p.obsDim))
    return `policy.obsNorm: mean and var must have ${p.obsDim} values`;
  const bytes = policyLayout(p).size * 4;
  if (p.params.length !== base64Length(bytes) || Buffer.from(p.params, "base64").byteLength !== bytes)
    return `policy.params: not the ${bytes} bytes of that network's parameters in base64`;
  return k.sha256 === paramsSha256(p.params) ? null : "sha256: not the sha256 of policy.params' bytes";
};

/** Why the kept policies cannot be this result's (`field: problem`), or null. */
const keptProblem = (job: PoolJob, r: Pick<JobResult, "checkpointPolicies">, k: KeptPolicies): string | null => {
  const steps = (r.checkpointPolicies ?? []).map((c) => c.step);
  if (JSON.stringify(k.checkpoints.map((c) => c.step)) !== JSON.stringify(steps))
    return `policies.checkpoints: steps [${k.checkpoints.map((c) => c.step).join(", ")}], not the result's checkpointPolicies [${steps.join(", ")}]`;
  if (new Set(steps).size !== steps.length) return "policies.checkpoints: a step is kept twice";
  const all = [["final", k.final] as const, ...k.checkpoints.map((c, i) => [`checkpoints.${i}`, c] as const)];
  for (const [where, p] of all) {
    const problem = shapeProblem(job, p);
    if (problem) return `policies.${where}.${problem}`;
  }
  return null;
};

/** Makes a folder under `parent` nobody else has (mkdir without `recursive` fails where it exists). */
const newFolder = (parent: string, stem: string): string => {
  mkdirSync(parent, { recursive: true });
  for (let n = 1; ; n++) {
    const dir = join(parent, `${stem}-${n}`);
    try {
      mkdirSync(dir);
      return dir;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
};

const instanceOf = (job: PoolJob): TaskInstance => (typeof job.instance === "number" ? getTask(job.task).generate(job.instance) : job.instance);

/**
 * On the lead: the kept policies of a worker's result checked (see above) and written into a new folder under
 * `jobsDir` as the trainer writes them (policy.json, checkpoint-<step>.json); the result's paths are then these.
 * A missing or failing one is a ConfigError naming the job and the field, and nothing is written.
 */
export const keepRemotePolicies = (
  jobId: string,
  job: PoolJob,
  result: JobResult,
  raw: unknown,
  o: { worker: string; jobsDir: string; label?: string },
): { result: JobResult; jobDir: string } => {
  const refuse = (problem: string) => new ConfigError(`training job ${jobId}: worker ${o.worker}'s result: ${problem}; the result was not recorded`);
  if (!(listTasks() as readonly string[]).includes(job.task))
    throw refuse(`policies: task ${job.task} is not one of hexa's, so its policies' network cannot be checked`);
  if (raw === undefined) throw refuse("policies: missing; the job keeps its policies (run the same hexa on every worker)");
  const parsed = KeptPolicies.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw refuse(`policies.${i.path.join(".")}: ${i.message}`);
  }
  const problem = keptProblem(job, result, parsed.data);
  if (problem) throw refuse(problem);
  const dir = newFolder(resolve(o.jobsDir), `${(o.label ?? job.task).replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 60)}-remote-${process.pid}`);
  const instance = instanceOf(job);
  const write = (name: string, steps: number, policy: SerializedPolicy) => {
    const path = join(dir, name);
    writeJsonAtomic(path, { task: job.task, instance, seed: job.seed, steps, policy });
    return path;
  };
  const policy = write("policy.json", result.steps, parsed.data.final.policy as SerializedPolicy);
  const checkpointPolicies = parsed.data.checkpoints.map((c) => ({
    step: c.step,
    policy: write(`checkpoint-${c.step}.json`, c.step, c.policy as SerializedPolicy),
  }));
  return { result: { ...result, policy, checkpointPolicies }, jobDir: dir };
};
