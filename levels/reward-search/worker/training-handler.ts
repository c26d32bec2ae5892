import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { RewardSearchConfig } from "../config.ts";
import { ConfigError } from "../../../src/errors.ts";
import type { FamilyWorkerContext } from "../../../src/family/registry.ts";
import type { TrainerPool } from "../trainer/pool.ts";
import type { JobBudget } from "../trainer/protocol.ts";
import { JOB_SCHEMA_VERSION } from "../../../src/family/job-envelope.ts";
import { TrainingJobData } from "./training-job.ts";
import { localTrainerPool } from "../trainer/local-pool.ts";
import { readKeptPolicies } from "./kept-policies.ts";

/**
 * The worker's own trainer settings (worker.yaml `reward-search:`, docs/security.md): what runs on this machine
 * is the worker's. A job's trainer command must be this one (none: the built-in trainer); the processes are this
 * worker's whatever the job says.
 */
const WorkerTrainerSettings = z
  .strictObject({
    trainer: z
      .strictObject({
        command: z.array(z.string().min(1)).min(1).optional().describe("the trainer this worker runs; unset: the built-in PPO trainer"),
        processes: z.number().int().min(1).optional().describe("trainer processes run at once; unset: one per free core"),
      })
      .prefault({}),
  })
  .prefault({});

const shownCommand = (c: readonly string[] | undefined): string => (c ? JSON.stringify(c).slice(0, 200) : "none (the built-in trainer)");

/**
 * A training job on a worker: the same trainer pool code as a local run, one pool of the worker's own trainer (its
 * processes stay up between jobs), with this worker's cache and job folders under `<runsDir>/.workers/`. The job's settings are checked
 * against the worker's before any pool is made: no process starts and nothing is written for a refused job.
 */
export const trainingHandler = (ctx: Pick<FamilyWorkerContext, "workerName" | "settings" | "workerDir">) => {
  const own = WorkerTrainerSettings.safeParse(ctx.settings ?? {});
  if (!own.success) throw new ConfigError(`worker.yaml reward-search: ${own.error.issues[0]?.path.join(".")}: ${own.error.issues[0]?.message}`);
  const mine = own.data.trainer;
  // One pool, of what the worker owns (its trainer, processes and folders): a job's settings cannot make another.
  let pool: TrainerPool | undefined;
  const ownPool = (): TrainerPool => {
    const defaults = RewardSearchConfig.parse({});
    pool ??= localTrainerPool({
      ...defaults,
      cacheDir: join(ctx.workerDir, "trainer-cache"),
      jobsDir: join(ctx.workerDir, "trainer-jobs"),
      trainer: { ...defaults.trainer, ...(mine.command ? { command: mine.command } : {}), ...(mine.processes ? { processes: mine.processes } : {}) },
    });
    return pool;
  };
  /** The job's settings checked against the worker's; the limits they set on each job (wall clock, steps) are kept. */
  const budgetOf = (settings: Record<string, unknown>, jobId: string): JobBudget => {
    const c = RewardSearchConfig.safeParse(settings);
    if (!c.success) throw new ConfigError(`job ${jobId}: trainer settings: ${c.error.issues[0]?.path.join(".")}: ${c.error.issues[0]?.message}`);
    if (!isDeepStrictEqual(c.data.trainer.command, mine.command))
      throw new ConfigError(
        `job ${jobId}: trainer.command: the job names ${shownCommand(c.data.trainer.command)}; this worker runs only its own trainer, ${shownCommand(mine.command)} (worker.yaml reward-search.trainer.command)`,
      );
    // The job's cacheDir, jobsDir, processes and startTimeoutMs are ignored: they are this worker's (docs/security.md).
    const { wallMs, maxSteps } = c.data.trainer;
    return { ...(wallMs ? { wallMs } : {}), ...(maxSteps ? { maxSteps } : {}) };
  };
  const handle = async (raw: unknown, jobId: string, progress: (p: object) => Promise<void>): Promise<unknown> => {
    const parsed = TrainingJobData.safeParse(raw);
    if (!parsed.success)
      throw new ConfigError(
        `job ${jobId}: not a training job of schema ${JOB_SCHEMA_VERSION} (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message})`,
      );
    const d = parsed.data;
    const budget = { ...budgetOf(d.trainer, jobId), ...("budget" in d ? d.budget : {}) };
    if (d.kind === "hello") return { hello: await ownPool().hello() };
    const outcome = await ownPool().train(d.job, {
      ...(Object.keys(budget).length ? { budget } : {}),
      ...(d.label ? { label: d.label } : {}),
      ...(d.needsLosses ? { needsLosses: true } : {}),
      onProgress: (p) => void progress(p).catch(() => undefined),
    });
    // The policies a job keeps are judged by the lead: they travel with the result (kept-policies.ts).
    const policies = d.job.keepPolicies && outcome.kind === "result" ? { policies: readKeptPolicies(outcome.result) } : {};
    return { outcome, worker: worker(), ...policies };
  };
  const worker = ctx.workerName;
  return { handle, close: async () => void (await pool?.close()) };
};
