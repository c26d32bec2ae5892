import type { FamilyModule } from "../../src/family/registry.ts";
import { benchCommand } from "./cli/bench.ts";
import { filmCommand } from "./cli/film.ts";
import { searchCommand } from "./cli/search.ts";
import { trainerCommand } from "./cli/trainer.ts";
import type { RewardSearchConfig } from "./config.ts";
import { rewardSearchFamily } from "./family.ts";
import { localTrainerPool } from "./trainer/local-pool.ts";
import type { TrainerPool } from "./trainer/pool.ts";
import { TRAININGS } from "./worker/training-job.ts";

/** Where the family's trainings run: this machine's trainer processes, or (on a worker) the Redis trainings queue. */
let trainerFor: (c: RewardSearchConfig) => TrainerPool = localTrainerPool;

export const rewardSearchModule: FamilyModule = {
  id: "reward-search",
  title: "Reward search: write reward code, train PPO on it, reach the task's fitness",
  build: () => rewardSearchFamily((c) => trainerFor(c)),
  commands: [trainerCommand, searchCommand, benchCommand, filmCommand],
  worker: {
    queues: [TRAININGS],
    serve: async (ctx) => {
      // Loaded only on a worker: bullmq is not part of any other command's start-up.
      const [{ redisTrainerPool }, { trainingHandler }] = await Promise.all([import("./worker/redis-trainer-pool.ts"), import("./worker/training-handler.ts")]);
      // An episode's trainings go to the trainings queue, so every worker that serves it shares the heavy part.
      trainerFor = (c) =>
        redisTrainerPool({
          connection: ctx.connection,
          hexa: ctx.hexa,
          trainer: { trainer: c.trainer, cacheDir: c.cacheDir, jobsDir: c.jobsDir },
          log: ctx.log,
        });
      const trainings = trainingHandler(ctx.workerName);
      return { handlers: { [TRAININGS]: trainings.handle }, close: trainings.close };
    },
  },
};
