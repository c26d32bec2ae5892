import type { Argv } from "yargs";
import type { AppContext } from "../app/context.ts";
import { ConfigError } from "../errors.ts";
import { type ArgsOf, defineCommand } from "../cli-kit/define-command.ts";
import { intFlag } from "../cli-kit/flags.ts";
import { parseJobAge } from "../backend/redis/job-age.ts";

/** `--queues episodes,trainings` → the kinds, each known. */
const parseQueues =
  (kinds: readonly string[]) =>
  (v: unknown): string[] => {
    const names = String(v)
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = names.filter((n) => !kinds.includes(n));
    if (!names.length || bad.length)
      throw new ConfigError(`--queues: unknown queue ${JSON.stringify(bad[0] ?? v)}; known: ${kinds.join(", ")} (comma-separated)`);
    return [...new Set(names)];
  };

const workerFlags = (kinds: readonly string[]) => (y: Argv) =>
  y
    .option("redis", {
      type: "string",
      describe:
        "the Redis the coordinator uses, e.g. redis://127.0.0.1:6379 or rediss://HOST:PORT (TLS); else worker.yaml's redis (HEXA_REDIS_PASSWORD: its password)",
    })
    .option("config", {
      type: "string",
      describe: "worker.yaml: this worker's own settings (runsDir, allowEndpoints, jobKeyFile, llm, a family's trainer; docs/security.md)",
    })
    .option("runs-dir", {
      type: "string",
      describe: "the worker's runs folder; a job naming a path outside it is refused (default: worker.yaml's runsDir, else runs)",
    })
    .option("allow-endpoint", {
      type: "string",
      array: true,
      default: [] as string[],
      describe: "a model endpoint jobs may name in llm.actor.baseURL (repeatable); OPENAI_BASE_URL here is allowed too (OpenAI's only when none is named)",
    })
    .option("job-key-file", { type: "string", describe: "a file holding the job key the coordinator signs jobs with (else HEXA_JOB_KEY)" })
    .option("max-job-age", {
      type: "string",
      default: "24h",
      coerce: parseJobAge,
      describe: "the oldest signed job taken (e.g. 24h, 90m): an older one, such as a finished job added again, is refused",
    })
    .option("concurrency", { type: "string", default: 1, coerce: intFlag("concurrency", 1, 256), describe: "jobs run at once per queue" })
    .option("queues", {
      type: "string",
      default: kinds.join(","),
      coerce: parseQueues(kinds),
      describe: `the queues served: ${kinds.join(", ")} (comma-separated)`,
    })
    .option("lock-ms", {
      type: "string",
      default: 30_000,
      coerce: intFlag("lock-ms", 500, 3_600_000),
      describe: "a job's lock; a killed worker's job is taken over after about this long",
    })
    .option("stalled-ms", {
      type: "string",
      default: 30_000,
      coerce: intFlag("stalled-ms", 500, 3_600_000),
      describe: "how often this worker looks for jobs whose worker died",
    });

/** The flags `hexa worker` reads (src/cli/worker-serve.ts). */
export type WorkerArgs = ArgsOf<ReturnType<typeof workerFlags>>;

export const workerCommand = (ctx: AppContext) =>
  defineCommand({
    command: "worker",
    describe: "take episode and training jobs from Redis and run them for hexa run/compare --backend (start one per machine)",
    builder: workerFlags(ctx.families.queueKinds()),
    // Redis, the models and the loop are loaded only here: `hexa worker --help` starts fast.
    handler: async (argv) => (await import("./worker-serve.ts")).serveJobs(ctx.families, argv, ctx.actorMiddleware),
  });
