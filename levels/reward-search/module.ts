import { existsSync } from "node:fs";
import { join } from "node:path";
import type { RedisConnection } from "../../src/backend/redis/connection.ts";
import type { FamilyHost } from "../../src/family/host.ts";
import type { FamilyModule } from "../../src/family/registry.ts";
import { lazyCommand } from "../../src/cli-kit/lazy-command.ts";
import type { RewardSearchConfig } from "./config.ts";
import type { TrainerPool } from "./trainer/pool.ts";
import type { ReplaySlot } from "./verify/replay.ts";
import { TRAININGS } from "./worker/trainings-queue.ts";
import { isP2pFolder, p2pSignature } from "./report/p2p-folder.ts";

/** Where the family's trainings run, given a config: this machine's trainer processes by default. */
type TrainerSource = (c: RewardSearchConfig) => TrainerPool;

/**
 * The reward-search family as one registry holds it (levels/index.ts); its commands reach `host`. Its trainer source
 * belongs to this module value: `hexa worker` routes the trainings to the Redis trainings queue, `hexa verify` to
 * the recorded trainings, before the family is built; `hexa run --backend` with a search method routes a search's
 * trainings to the queue before its first training (the pools are made on first use).
 */
export const rewardSearchModule = (host: FamilyHost): FamilyModule => {
  let trainerFor: TrainerSource | undefined;
  const replaying: ReplaySlot = {};
  return {
    id: "reward-search",
    title: "Reward search: write reward code, train PPO on it, reach the task's fitness",
    build: async () => {
      const [{ rewardSearchFamily }, { localTrainerPool }] = await Promise.all([import("./family.ts"), import("./trainer/local-pool.ts")]);
      return rewardSearchFamily((c) => (trainerFor ?? localTrainerPool)(c));
    },
    listing: async () => {
      const { getTask, listTasks } = await import("./tasks/index.ts");
      return { header: ["task", "solved at F ≥", "description"], rows: listTasks().map((id) => [id, String(getTask(id).fitness.solved), getTask(id).title]) };
    },
    commands: [
      lazyCommand(
        { command: "trainer <command>", describe: "the training process behind reward search (docs/trainer-protocol.md)" },
        async () => (await import("./cli/trainer.ts")).trainerCommand,
      ),
      lazyCommand(
        {
          command: "search [task]",
          describe: "search reward functions for one reward-search task with Eureka's greedy evolution, RF-Agent's tree search or the p2p loop",
        },
        async () => (await import("./cli/search.ts")).searchCommand(host),
      ),
      lazyCommand(
        {
          command: "bench <suite>",
          describe:
            "benchmarks: reward-search runs the reward-search strategies side by side at equal budgets (F and its paired differences); intents runs P2P's intents and F-backed ones through the p2p strategy",
        },
        async () => (await import("./cli/bench.ts")).benchCommand(host),
      ),
      lazyCommand(
        { command: "film <task>", describe: "a rollout on a MuJoCo reward-search task as an animated GIF (side view; ant from above)" },
        async () => (await import("./cli/film.ts")).filmCommand,
      ),
      lazyCommand(
        {
          command: "judge",
          describe: "judge a policy's evaluation episodes with a code judge or, without one, the fitness judge; p10/median/p90 picks and judgment.json",
        },
        async () => (await import("./cli/judge.ts")).judgeCommand,
      ),
    ],
    replay: {
      run: async (record) => (await import("./verify/replay.ts")).replayTrainings(record, (f) => (trainerFor = f), replaying),
      recordedFiles: async (record) => (await import("./verify/recorded-trainings.ts")).recordedTrainings(record),
      search: async (record) => (await import("./verify/search-replay.ts")).replaySearch(record),
      judgment: async (record) => (await import("./verify/judgment-replay.ts")).replayJudgment(record),
    },
    inspect: {
      claims: (dir) => existsSync(join(dir, "judgment.json")) || isP2pFolder(dir),
      page: async (dir, opts) =>
        isP2pFolder(dir) ? (await import("./report/p2p-inspect.ts")).p2pPage(dir, opts) : (await import("./report/judgment-inspect.ts")).judgmentPage(dir),
      signature: (dir) => (isP2pFolder(dir) ? p2pSignature(dir) : undefined),
    },
    worker: {
      queues: [TRAININGS],
      serve: async (ctx) => {
        // Loaded only on a worker: bullmq is not part of any other command's start-up.
        const [{ redisTrainerPool }, { trainingHandler }] = await Promise.all([
          import("./worker/redis-trainer-pool.ts"),
          import("./worker/training-handler.ts"),
        ]);
        // An episode's trainings go to the trainings queue, so every worker that serves it shares the heavy part.
        trainerFor = (c) =>
          redisTrainerPool({
            // hexa worker serves queues on Redis only: its connection is the backend's (src/family/registry.ts QueueConnection).
            connection: ctx.connection as RedisConnection,
            hexa: ctx.hexa,
            trainer: { trainer: c.trainer, cacheDir: c.cacheDir, jobsDir: c.jobsDir },
            sign: ctx.sign,
            resultProblem: ctx.resultProblem,
            log: ctx.log,
          });
        const trainings = trainingHandler(ctx);
        return { handlers: { [TRAININGS]: trainings.handle }, close: trainings.close };
      },
      coordinate: async (access) => {
        // The search's trainings on the workers, each answer recorded in the run's trainer cache as a local pool's.
        const { queueTrainerPool } = await import("./worker/queue-trainers.ts");
        trainerFor = (c) => queueTrainerPool(access, c);
      },
    },
  };
};
