import type { RewardSearchConfig } from "../config.ts";
import { createTrainerPool, type TrainerPool } from "./pool.ts";

/** Trainer processes on this machine, as a reward-search config asks for them. */
export const localTrainerPool = (c: RewardSearchConfig): TrainerPool =>
  createTrainerPool({
    ...(c.trainer.command ? { command: c.trainer.command } : {}),
    ...(c.trainer.processes ? { size: c.trainer.processes } : {}),
    startTimeoutMs: c.trainer.startTimeoutMs,
    jobsDir: c.jobsDir,
    cacheDir: c.cacheDir,
    budget: { ...(c.trainer.wallMs ? { wallMs: c.trainer.wallMs } : {}), ...(c.trainer.maxSteps ? { maxSteps: c.trainer.maxSteps } : {}) },
  });
