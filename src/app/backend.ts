import type { RedisConnection } from "../backend/redis/connection.ts";
import type { FamilyRegistry } from "./families.ts";
import type { QueueAccess } from "../family/registry.ts";
import type { RedisLedger } from "../backend/redis/spend-ledger.ts";
import type { Budget, Spend } from "../llm/budget.ts";
import type { EpisodeBackend } from "../loop/episode-backend.ts";
import type { UsageLine } from "../store/run-records.ts";
import { configWithoutSecrets, type RunConfig } from "../loop/run-config.ts";
import { urlWithoutPassword } from "../util/secret-fields.ts";
import { ConfigError } from "../errors.ts";
import { checkJobKeyFor, readJobKey } from "./job-key.ts";
import { codeVersion } from "./run-setup.ts";

/** A Redis backend as a run uses it: its connection (the URL parsed once) and the job key, checked together. */
interface RedisBackend {
  connection: RedisConnection;
  jobKey: string | undefined;
}

const opened = new Map<string, Promise<RedisBackend>>();

/**
 * The Redis a backend spec names, parsed once per process (the ledger and the episode queue share it): its TLS
 * files read, the job key read and checked against where Redis is (job-key.ts: no key, loopback addresses only,
 * and the connection pinned to the address checked), and TLS tried, before anything is written.
 */
const redisBackendOf = (spec: string, where: string): Promise<RedisBackend> => {
  const key = JSON.stringify([spec, where]);
  if (!opened.has(key))
    opened.set(
      key,
      (async () => {
        const [{ parseRedisUrl }, { checkRedisTls, redisTlsFiles, withTlsFiles }] = await Promise.all([
          import("../backend/redis/connection.ts"),
          import("../backend/redis/tls-options.ts"),
        ]);
        const jobKey = readJobKey(process.env);
        // Only a worker warns about unsigned jobs: it is the one that runs them.
        const connection = await checkJobKeyFor(
          withTlsFiles(parseRedisUrl(spec, where, process.env.HEXA_REDIS_PASSWORD), redisTlsFiles(process.env), where),
          jobKey,
          where,
          () => undefined,
        );
        await checkRedisTls(connection, where);
        return { connection, jobKey };
      })(),
    );
  return opened.get(key)!;
};

/**
 * The run's episode backend (docs/ARCHITECTURE.md §7), chosen here and nowhere else: `local` (undefined: the loop plays in
 * this process) or `redis[s]://HOST:PORT` (hexa worker processes play; bullmq is loaded only then). `where` names
 * the flag or key in errors. Redis that does not answer is refused before anything is written.
 */
export const openEpisodes = async (
  families: FamilyRegistry,
  spec: string,
  where: string,
  o: { run: string; config: RunConfig; log: (line: string) => void; budget?: Budget; charge?: (line: UsageLine) => Promise<void> },
): Promise<EpisodeBackend | undefined> => {
  if (checkBackend(spec, where) === "local") return undefined;
  const { connection, jobKey } = await redisBackendOf(spec, where);
  const [{ openRedisEpisodes }, { budgetOf }] = await Promise.all([import("../backend/redis/coordinator.ts"), import("../../agents/episode-budget.ts")]);
  const { run, log, budget, charge } = o;
  return openRedisEpisodes({
    connection,
    run,
    config: configWithoutSecrets(o.config, families.all()),
    results: { family: families.get(o.config.family), maxTurnsOf: (agent) => budgetOf(agent, o.config.actor.maxTurns) },
    ...(jobKey ? { jobKey } : {}),
    hexa: codeVersion(),
    log,
    ...checkMs(),
    ...(budget ? { budget } : {}),
    ...(charge ? { charge } : {}),
  });
};

/**
 * The maker of a run's spend ledger when workers play its episodes (one ledger in Redis for the coordinator's
 * gate and every worker's); undefined for a local run, whose gate counts in this process.
 */
export const sharedLedger = async (spec: string, where: string, run: string): Promise<((cap: Budget, spent: Spend) => RedisLedger) | undefined> => {
  if (checkBackend(spec, where) === "local") return undefined;
  const { connection } = await redisBackendOf(spec, where);
  const { openRedisLedger } = await import("../backend/redis/spend-ledger.ts");
  return (cap, spent) => openRedisLedger(connection, run, { cap, spent });
};

/**
 * The queue backend a spec names for a coordinator's own heavy jobs (a search's trainings): its connection, checked
 * with the job key and TLS as the episode queue's is, and jobs and results signed with that key; undefined for `local`.
 */
export const queueAccessOf = async (spec: string, where: string, log: (line: string) => void): Promise<QueueAccess | undefined> => {
  if (checkBackend(spec, where) === "local") return undefined;
  const { connection, jobKey } = await redisBackendOf(spec, where);
  const { resultSignatureProblem, signJob } = await import("../backend/redis/job-signature.ts");
  return {
    connection,
    hexa: codeVersion(),
    log,
    sign: (kind, jobId, data) => signJob(jobKey, kind, jobId, data),
    resultProblem: (kind, jobId, result) => resultSignatureProblem(jobKey, kind, jobId, result),
  };
};

/**
 * A whole search run on a queue backend (`hexa run --backend` with a search method): the family's own heavy jobs —
 * reward search's trainings, which a search does on the coordinator — go to its queues, where `hexa worker`s take them.
 */
export const routeSearchToQueues = async (
  families: FamilyRegistry,
  family: string,
  spec: string,
  where: string,
  log: (line: string) => void,
): Promise<void> => {
  const access = await queueAccessOf(spec, where, log);
  const module = families.modules().find((m) => m.id === family);
  if (access) await module?.worker?.coordinate?.(access);
};

/** A backend spec's kind, or a ConfigError naming `where`. */
export const checkBackend = (spec: string, where: string): "local" | "redis" => {
  if (spec === "local") return "local";
  if (spec.startsWith("redis://") || spec.startsWith("rediss://")) return "redis";
  throw new ConfigError(
    `${where}: unknown backend ${JSON.stringify(urlWithoutPassword(spec))}; use local or redis://HOST:PORT (rediss:// for TLS; hexa worker processes play the episodes)`,
  );
};

/** HEXA_QUEUE_CHECK_MS: how often jobs in flight are checked for having vanished from Redis (tests shorten it). */
const checkMs = (): { checkMs?: number } => {
  const v = process.env.HEXA_QUEUE_CHECK_MS;
  if (v === undefined) return {};
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 50)
    throw new ConfigError(`HEXA_QUEUE_CHECK_MS must be an integer ≥ 50 (got ${JSON.stringify(v)}); unset it for the default 5000`);
  return { checkMs: n };
};
