import type { RewardSearchConfig } from "../config.ts";
import { createTrainerPool, type TrainerPool } from "./pool.ts";
import { cacheDirOf, jobsDirOf } from "./run-pools.ts";

/** Trainer processes on this machine, as a reward-search config asks for them (folders the config leaves unset: in runs/ here). */
export const localTrainerPool = (c: RewardSearchConfig): TrainerPool =>
  createTrainerPool({
    ...(c.trainer.command ? { command: c.trainer.command } : {}),
    ...(c.trainer.processes ? { size: c.trainer.processes } : {}),
    startTimeoutMs: c.trainer.startTimeoutMs,
    jobsDir: jobsDirOf(c, undefined),
    cacheDir: cacheDirOf(c, undefined),
    budget: { ...(c.trainer.wallMs ? { wallMs: c.trainer.wallMs } : {}), ...(c.trainer.maxSteps ? { maxSteps: c.trainer.maxSteps } : {}) },
  });
