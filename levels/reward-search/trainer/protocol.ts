import { z } from "zod";
import { TaskInstance } from "../task.ts";

/**
 * The trainer process protocol (docs/trainer-protocol.md): JSON lines over a child process's stdin/stdout.
 * Every message is one JSON object on one line with a `type`; these schemas are the one definition of them,
 * used by the host (client.ts), the built-in trainer (serve.ts) and the conformance check.
 */
export const TRAINER_PROTOCOL_VERSION = 1;

const finite = z.number().refine(Number.isFinite, "must be a finite number");
const int0 = z.number().int().min(0);
const jobId = z.string().min(1).max(200);

/** Checkpoint policies a result may name at most (the built-in trainer evaluates 10 checkpoints). */
const MAX_KEPT_POLICIES = 64;

const ComponentStats = z.strictObject({ mean: finite, min: finite, max: finite });

/** A task as a trainer announces it: enough for the host to show the model what the reward code may read. */
export const TaskDescriptor = z.object({
  id: z.string().min(1),
  title: z.string(),
  description: z.string().min(1),
  observation: z.array(z.string()).optional(),
  actionNames: z.array(z.string()).optional(),
  info: z.array(z.string()).optional(),
  fitness: z.object({ describe: z.string(), range: z.tuple([z.number(), z.number()]), solved: z.number() }).optional(),
  maxEpisodeSteps: z.number().int().min(1).optional(),
  /** Env steps of a full-budget training on this task. */
  defaultSteps: z.number().int().min(1).optional(),
});
export type TaskDescriptor = z.infer<typeof TaskDescriptor>;

// ---- trainer → host -------------------------------------------------------------------------------------

export const HelloMessage = z.object({
  type: z.literal("hello"),
  protocol: z.number().int(),
  trainer: z.object({ name: z.string().min(1), version: z.string().min(1) }),
  tasks: z.array(TaskDescriptor),
  /** How many jobs the trainer runs at once; the host sends no more than this (default 1). */
  concurrency: z.number().int().min(1).optional(),
});
export type HelloMessage = z.infer<typeof HelloMessage>;

/**
 * CleanRL's losses/* of one iteration's update, each optional (a trainer sends what it has) and null where it is
 * not a finite number. The built-in trainer: the last minibatch's losses, entropy and approx_kl, clipfrac over
 * all minibatches, the explained variance of the rollout's values for its returns.
 */
export const LossDiagnostics = z.object({
  policyLoss: finite.nullable().optional(),
  valueLoss: finite.nullable().optional(),
  entropy: finite.nullable().optional(),
  approxKl: finite.nullable().optional(),
  clipFrac: finite.nullable().optional(),
  explainedVariance: finite.nullable().optional(),
});
export type LossDiagnostics = z.infer<typeof LossDiagnostics>;

export const ProgressMessage = z.object({
  type: z.literal("progress"),
  id: jobId,
  iteration: int0,
  /** Env steps trained so far in this job. */
  steps: int0,
  /** Mean task fitness F of the episodes that ended in this iteration; null when none ended. */
  fitness: finite.nullable(),
  episodeLength: finite.nullable(),
  components: z.record(z.string(), ComponentStats),
  /** Optional, added within protocol 1: hosts that predate it ignore it. */
  losses: LossDiagnostics.optional(),
});
export type ProgressMessage = z.infer<typeof ProgressMessage>;

export const ResultMessage = z.object({
  type: z.literal("result"),
  id: jobId,
  /** The reported score: the final policy's F, mean over ≥ 3 evaluation seeds disjoint from the training seed. */
  final: z.object({
    fitness: finite,
    perSeed: z.array(z.object({ seed: int0, fitness: finite })).min(3),
  }),
  /** The best F seen during training and where: labelled as such, never the reported score. */
  bestCheckpoint: z.object({ fitness: finite, step: int0 }),
  /** Reward-component statistics of the whole run, sampled over training (Eureka's reward reflection). */
  components: z.record(z.string(), z.array(z.object({ step: int0, mean: finite, min: finite, max: finite }))),
  episodeLength: z.array(z.object({ step: int0, mean: finite })),
  fitnessCurve: z.array(z.object({ step: int0, fitness: finite })),
  steps: int0,
  wallMs: z.number().min(0),
  /** Path of the final policy file, inside the job's directory. */
  policy: z.string().min(1),
  /** The policy at each checkpoint evaluation (its step and file, inside the job's directory), when the job asked to keep them. */
  checkpointPolicies: z
    .array(z.object({ step: int0, policy: z.string().min(1) }))
    .max(MAX_KEPT_POLICIES)
    .optional(),
});
export type ResultMessage = z.infer<typeof ResultMessage>;

const ERROR_KINDS = ["reward_code", "unknown_task", "budget_exceeded", "bad_request", "cancelled", "internal"] as const;
export const ErrorKind = z.enum(ERROR_KINDS);
export type ErrorKind = z.infer<typeof ErrorKind>;

export const RewardFault = z.object({ kind: z.string().min(1), message: z.string(), line: z.number().int().min(1).optional() });
export type RewardFault = z.infer<typeof RewardFault>;

export const ErrorMessage = z.object({
  type: z.literal("error"),
  /** The job's id; null when the request was too broken to carry one. */
  id: jobId.nullable(),
  kind: ErrorKind,
  message: z.string(),
  /** For kind "reward_code": what went wrong in the reward code, with its line when known. */
  fault: RewardFault.optional(),
});
export type ErrorMessage = z.infer<typeof ErrorMessage>;

export const TrainerMessage = z.discriminatedUnion("type", [HelloMessage, ProgressMessage, ResultMessage, ErrorMessage]);
export type TrainerMessage = z.infer<typeof TrainerMessage>;

// ---- host → trainer -------------------------------------------------------------------------------------

export const JobBudget = z.strictObject({
  maxSteps: z.number().int().min(1).optional().describe("env steps after which the job is stopped"),
  wallMs: z.number().int().min(1).optional().describe("wall-clock milliseconds after which the job is stopped"),
});
export type JobBudget = z.infer<typeof JobBudget>;

export const TrainMessage = z.object({
  type: z.literal("train"),
  id: jobId,
  task: z.string().min(1),
  /** The task's instance: its seed (the trainer calls generate(seed)) or the whole TaskInstance. */
  instance: z.union([int0, TaskInstance]),
  /** The reward code (JavaScript; the sandbox's contract). */
  reward: z.string(),
  steps: z.number().int().min(1),
  seed: int0,
  evalSeeds: z.array(int0).min(3),
  /** Overrides of the trainer's hyper-parameters (the built-in trainer: PpoConfig fields). */
  ppo: z.record(z.string(), z.unknown()).optional(),
  /** A directory of this job's own: the trainer writes the policy (and anything else) here, nowhere else. */
  jobDir: z.string().min(1),
  budget: JobBudget.optional(),
  /** Keep the policy at each checkpoint evaluation in the job's directory (result.checkpointPolicies); a judge of checkpoints reads them. */
  keepPolicies: z.boolean().optional(),
});
export type TrainMessage = z.infer<typeof TrainMessage>;

const CancelMessage = z.object({ type: z.literal("cancel"), id: jobId });

const ShutdownMessage = z.object({ type: z.literal("shutdown") });

export const HostMessage = z.discriminatedUnion("type", [TrainMessage, CancelMessage, ShutdownMessage]);
export type HostMessage = z.infer<typeof HostMessage>;

/** A problem with a train request that the schema cannot express: the evaluation seeds must not include the training seed. */
export const trainRequestProblem = (m: TrainMessage): string | null =>
  m.evalSeeds.includes(m.seed)
    ? `evalSeeds must be disjoint from the training seed (got seed ${m.seed} in [${m.evalSeeds.join(", ")}]); pick evaluation seeds other than ${m.seed}`
    : null;

/** One message as its protocol line. */
export const encodeLine = (m: TrainerMessage | HostMessage): string => `${JSON.stringify(m)}\n`;

/** zod's issues in one line: `path: message; path: message`. */
export const describeIssues = (e: z.ZodError): string => e.issues.map((i) => `${i.path.length ? i.path.join(".") : "(message)"}: ${i.message}`).join("; ");
