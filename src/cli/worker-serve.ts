import { mkdirSync } from "node:fs";
import type { FamilyRegistry } from "../app/families.ts";
import type { ActorMiddleware } from "../app/middleware-plugins.ts";
import { dirname, join } from "node:path";
import { ConfigError } from "../errors.ts";
import type { RoleModel } from "../llm/ask.ts";
import { playHere } from "../loop/episode-backend.ts";
import { composeRunConfig, parseRunConfig, type RunConfig } from "../loop/run-config.ts";
import type { UsageLine } from "../store/run-records.ts";
import { BudgetExceeded, hasCap, NO_SPEND, SpendGate, type Budget } from "../llm/budget.ts";
import { parseRedisUrl, redisLabel, withTimeout, type RedisConnection } from "../backend/redis/connection.ts";
import type { RedisLedger } from "../backend/redis/spend-ledger.ts";
import type { JobHandler } from "../backend/redis/worker.ts";
import { EPISODES, EpisodeJobData, JOB_SCHEMA_VERSION, type EpisodeJobResult } from "../backend/redis/jobs.ts";
import { InvariantError } from "../errors.ts";
import { codeVersion } from "../app/run-setup.ts";
import { checkJobKeyFor, readJobKey } from "../app/job-key.ts";
import { checkRedisTls, redisTlsFiles, withTlsFiles } from "../backend/redis/tls-options.ts";
import { loadWorkerConfig, workerTrustOf } from "./worker-config.ts";
import { trustedEpisodeLlm, type WorkerTrust } from "./worker-trust.ts";
import { urlWithoutPassword } from "../util/secret-fields.ts";
import { checkJobBank } from "./job-bank.ts";

import type { WorkerArgs } from "./worker.ts";

/**
 * The actor model of a job's run, built once per (run, llm config) from this machine's environment: keys never
 * travel in a job. Its calls are logged under <runs>/.workers/<run>/ here unless worker.yaml names an audit log
 * (worker-trust.ts replaced the job's paths with the worker's before the llm settings reach here).
 * A job of a capped run gets a model of its own behind a gate that counts in the run's ledger in Redis: a gate
 * refuses every call after its first refusal, and a resume with a raised cap must find a fresh one.
 */
const actorModels = (connection: RedisConnection) => {
  const built = new Map<string, RoleModel>();
  const ledgers = new Map<string, RedisLedger>();
  const warn = (m: string) => process.stderr.write(`warning: ${m}\n`);
  const build = async (cfg: RunConfig, gate?: SpendGate): Promise<RoleModel> => {
    const { createRoleModel } = await import("../llm/role-model.ts");
    const llm = cfg.llm;
    if (llm.auditLog) mkdirSync(dirname(llm.auditLog), { recursive: true });
    try {
      return createRoleModel("actor", llm, { env: process.env, onNotice: warn, ...(gate ? { gate } : {}) });
    } catch (e) {
      if (e instanceof ConfigError)
        throw new ConfigError(`${e.message}; a worker reads keys from its own environment: export it where hexa worker runs, then hexa run --resume`);
      throw e;
    }
  };
  return {
    of: async (cfg: RunConfig, run: string, budget: Budget | undefined): Promise<RoleModel> => {
      if (budget && hasCap(budget)) {
        const { openRedisLedger } = await import("../backend/redis/spend-ledger.ts");
        if (!ledgers.has(run)) ledgers.set(run, openRedisLedger(connection, run));
        return build(cfg, new SpendGate(budget, cfg.llm.prices, NO_SPEND, ledgers.get(run)));
      }
      const key = JSON.stringify([run, cfg.llm]);
      if (!built.has(key)) built.set(key, await build(cfg));
      return built.get(key)!;
    },
    close: () => Promise.all([...ledgers.values()].map((l) => l.close())),
  };
};

/** An episode job: the same playHere as a local run, with the bank the coordinator sent and this worker's endpoints and folders. */
const episodeHandler = (families: FamilyRegistry, worker: () => string, connection: RedisConnection, trust: WorkerTrust, middleware: ActorMiddleware) => {
  const actors = actorModels(connection);
  const handle: JobHandler = async (raw, jobId, progress): Promise<EpisodeJobResult> => {
    const parsed = EpisodeJobData.safeParse(raw);
    if (!parsed.success)
      throw new ConfigError(
        `job ${jobId}: not an episode job of schema ${JOB_SCHEMA_VERSION} (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message})`,
      );
    const d = parsed.data;
    const parsedCfg = parseRunConfig(d.config, `job ${jobId}: config`, families.all());
    const cfg = { ...parsedCfg, llm: trustedEpisodeLlm(parsedCfg, d.config, composeRunConfig(families.all()), trust, d.run) };
    const family = families.get(cfg.family);
    family.checkLevel(d.episode.level);
    const bank = checkJobBank(jobId, d.bank, { skills: cfg.bank.maxSkills, mistakes: cfg.bank.maxMistakes }, family.heuristics?.payload);
    const actorModel = d.episode.agent === "heuristic" ? undefined : await actors.of(cfg, d.run, d.budget);
    const usage: UsageLine[] = [];
    try {
      const recording = family.records?.recordingEpisode();
      const ports = {
        family: recording?.family ?? family,
        ...(actorModel ? { actorModel } : {}),
        ...(middleware.list.length ? { actorMiddleware: middleware.list } : {}),
        now: () => performance.now(),
      };
      const played = await playHere(cfg, { ...d.episode, bank }, ports, (l) => usage.push(l));
      const kept = recording ? { kept: recording.kept() } : {};
      return { schemaVersion: JOB_SCHEMA_VERSION, trajectory: played.trajectory, retrieved: played.retrieved, usage, worker: worker(), ...kept };
    } catch (e) {
      // The calls made before the stop are the run's spend too: the coordinator records them from the progress.
      if (e instanceof BudgetExceeded) await progress({ stoppedUsage: usage });
      throw e;
    }
  };
  return { handle, close: actors.close };
};

/** Serves until SIGINT / SIGTERM, then closes the worker after the jobs in flight and `closeRest`. */
const untilStopped = (w: { name: string; close(): Promise<unknown> }, closeRest: () => Promise<unknown>, log: (line: string) => void): Promise<void> =>
  new Promise<void>((stopped) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      // A second signal stops at once; the jobs in flight lose their locks and other workers take them over.
      const now = () => process.exit(130);
      process.once("SIGINT", now);
      process.once("SIGTERM", now);
      log(`worker ${w.name}: stopping after the jobs in flight (Ctrl-C again to stop at once)`);
      void w
        .close()
        .then(closeRest)
        .then(() => stopped());
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });

/**
 * `hexa worker` (src/cli/worker.ts): serves the queues it names on Redis until stopped (Ctrl-C stops after the jobs
 * in flight). Its episodes run the middleware of its own environment (HEXA_MIDDLEWARE), never one a job names.
 */
export const serveJobs = async (families: FamilyRegistry, argv: WorkerArgs, middleware: ActorMiddleware): Promise<void> => {
  const withSettings = families.modules().flatMap((m) => (m.worker ? [m.id] : []));
  const settings = loadWorkerConfig(argv.config, withSettings);
  const url = argv.redis ?? settings.redis;
  if (!url) throw new ConfigError("--redis: no Redis named; pass --redis redis://HOST:PORT or set redis in worker.yaml (--config)");
  const redisWhere = argv.redis ? "--redis" : `--config ${argv.config}: redis`;
  const tlsWhere = `--config ${argv.config}: tls`;
  const named = withTlsFiles(parseRedisUrl(url, redisWhere, process.env.HEXA_REDIS_PASSWORD), redisTlsFiles(process.env, settings.tls, tlsWhere), redisWhere);
  const trust = workerTrustOf(
    settings,
    { ...(argv["runs-dir"] ? { runsDir: argv["runs-dir"] } : {}), allowEndpoints: argv["allow-endpoint"].map(String) },
    process.env,
  );
  const keyFile = argv["job-key-file"] ?? settings.jobKeyFile;
  const jobKey = readJobKey(process.env, keyFile ? { path: keyFile, where: argv["job-key-file"] ? "--job-key-file" : "worker.yaml jobKeyFile" } : undefined);
  const queues = argv.queues;
  const { startWorker } = await import("../backend/redis/worker.ts");
  const log = (line: string) => process.stderr.write(`${line}\n`);
  let name = "";
  const hexa = codeVersion();
  // Each family routes its own heavy jobs (reward search: trainings) before any family is built.
  if (families.anyBuilt()) throw new InvariantError("hexa worker: a family was built before its worker hooks ran");
  const connection = await checkJobKeyFor(named, jobKey, redisWhere, log);
  await checkRedisTls(connection, redisWhere);
  const { resultSignatureProblem, signJob } = await import("../backend/redis/job-signature.ts");
  const context = (id: string) => ({
    connection,
    hexa,
    log,
    workerName: () => name,
    settings: settings.families[id],
    workerDir: join(trust.runsDir, ".workers"),
    sign: <T extends object>(kind: string, jobId: string, data: T) => signJob(jobKey, kind, jobId, data),
    resultProblem: (kind: string, jobId: string, result: unknown) => resultSignatureProblem(jobKey, kind, jobId, result),
  });
  const served = await Promise.all(families.modules().flatMap((m) => (m.worker ? [m.worker.serve(context(m.id))] : [])));
  await families.load();
  if (middleware.names.length) log(`worker: the actor's episodes run your middleware after hexa's (HEXA_MIDDLEWARE): ${middleware.names.join(", ")}`);
  const episodes = episodeHandler(families, () => name, connection, trust, middleware);
  const all = Object.assign({ [EPISODES]: episodes.handle }, ...served.map((s) => s.handlers)) as Record<string, JobHandler>;
  const handlers = Object.fromEntries(queues.map((q) => [q, all[q]!]));
  const w = await withTimeout(
    startWorker({
      connection,
      hexa,
      ...(jobKey ? { jobKey } : {}),
      maxJobAgeMs: argv["max-job-age"],
      concurrency: argv.concurrency,
      handlers,
      lockMs: argv["lock-ms"],
      stalledMs: argv["stalled-ms"],
      log,
    }),
    10_000,
    () => `--redis ${redisLabel(connection)}: Redis does not answer; start redis-server there (see docs/guides/many-machines.md) or fix the URL`,
  );
  name = w.name;
  const endpoints = [...new Set(trust.endpoints.map(urlWithoutPassword))].join(", ");
  log(`worker ${w.name}: runs folder ${trust.runsDir}; model endpoints allowed: ${endpoints}; jobs ${jobKey ? "must be signed with the job key" : "unsigned"}`);
  log(`worker ${w.name} on ${redisLabel(connection)}: ${queues.join(", ")}, ${argv.concurrency} at once per queue (Ctrl-C stops after the jobs in flight)`);
  await untilStopped(w, () => Promise.all([...served.map((s) => s.close()), episodes.close()]), log);
};
