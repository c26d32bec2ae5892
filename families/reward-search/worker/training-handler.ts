import { RewardSearchConfig } from "../config.ts";
import { ConfigError } from "../../../src/errors.ts";
import type { TrainerPool } from "../trainer/pool.ts";
import { JOB_SCHEMA_VERSION } from "../../../src/backend/redis/jobs.ts";
import { TrainingJobData } from "./training-job.ts";
import { localTrainerPool } from "../trainer/local-pool.ts";

/**
 * A training job on a worker: the same trainer pool code as a local run, one pool per trainer setting (its
 * processes stay up between jobs), with the setting's cache on this machine.
 */
export const trainingHandler = (worker: () => string) => {
  const pools = new Map<string, TrainerPool>();
  const poolOf = (settings: Record<string, unknown>, jobId: string): TrainerPool => {
    const key = JSON.stringify(settings);
    if (!pools.has(key)) {
      const c = RewardSearchConfig.safeParse(settings);
      if (!c.success) throw new ConfigError(`job ${jobId}: trainer settings: ${c.error.issues[0]?.path.join(".")}: ${c.error.issues[0]?.message}`);
      pools.set(key, localTrainerPool(c.data));
    }
    return pools.get(key)!;
  };
  const handle = async (raw: unknown, jobId: string, progress: (p: object) => Promise<void>): Promise<unknown> => {
    const parsed = TrainingJobData.safeParse(raw);
    if (!parsed.success)
      throw new ConfigError(
        `job ${jobId}: not a training job of schema ${JOB_SCHEMA_VERSION} (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message})`,
      );
    const d = parsed.data;
    const pool = poolOf(d.trainer, jobId);
    if (d.kind === "hello") return { hello: await pool.hello() };
    const outcome = await pool.train(d.job, {
      ...(d.budget ? { budget: d.budget } : {}),
      ...(d.label ? { label: d.label } : {}),
      onProgress: (p) => void progress(p).catch(() => undefined),
    });
    return { outcome, worker: worker() };
  };
  return { handle, close: () => Promise.all([...pools.values()].map((p) => p.close())) };
};
