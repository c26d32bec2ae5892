import type { RedisConnection } from "../../../src/backend/redis/connection.ts";
import type { QueueAccess } from "../../../src/family/registry.ts";
import type { RewardSearchConfig } from "../config.ts";
import type { TrainerPool } from "../trainer/pool.ts";
import { cacheDirOf, jobsDirOf } from "../trainer/run-pools.ts";
import { redisTrainerPool } from "./redis-trainer-pool.ts";

/**
 * The trainer pool of a coordinator whose searches train on `hexa worker`s (`hexa search --backend`, `hexa run
 * --backend` with a search method): every training goes to the trainings queue, signed with the job key. Each answer
 * is recorded in the config's trainer cache as a local pool's would be (`hexa verify` reads it there), and the
 * policies a training keeps come back into the config's jobs folder. The job names only the trainer and its per-job
 * limits; the workers' processes and folders are their own (docs/security.md).
 */
export const queueTrainerPool = (access: QueueAccess, c: RewardSearchConfig): TrainerPool =>
  redisTrainerPool({
    // Queues are on Redis only: the access's connection is the backend's (src/app/backend.ts).
    connection: access.connection as RedisConnection,
    hexa: access.hexa,
    trainer: { trainer: c.trainer },
    sign: access.sign,
    resultProblem: access.resultProblem,
    log: access.log,
    jobsDir: jobsDirOf(c, undefined),
    recordIn: cacheDirOf(c, undefined),
  });
