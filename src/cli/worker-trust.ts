import { join } from "node:path";
import type { z } from "zod";
import { ConfigError } from "../errors.ts";
import type { RunConfig } from "../loop/run-config.ts";
import { urlWithoutPassword, withoutSecrets } from "../util/secret-fields.ts";

/**
 * What a `hexa worker` trusts (docs/security.md): its own machine. A job chooses data only (the episode or
 * training, the config's method settings, the bank); what runs and where it is sent come from the worker's flags,
 * worker.yaml and environment. A job that names a command or an endpoint the worker does not allow is refused with
 * a ConfigError naming the field (the worker fails it without retries); the paths a job names are ignored.
 */
export interface WorkerTrust {
  /** The worker's runs folder, absolute: every file the worker writes for a job lies under `<runsDir>/.workers/`. */
  runsDir: string;
  /** Base URLs the worker sends model requests to: --allow-endpoint, worker.yaml allowEndpoints, its environment's. */
  endpoints: readonly string[];
  /** The worker's own llm.cacheDir and llm.auditLog (worker.yaml), used instead of any job's. */
  llm: { cacheDir?: string; auditLog?: string };
}

/** A URL as scheme, host, port and path segments, for comparing endpoints. */
const partsOf = (url: string): { origin: string; path: string[] } | undefined => {
  try {
    const u = new URL(url);
    return { origin: `${u.protocol}//${u.host.toLowerCase()}`, path: u.pathname.split("/").filter(Boolean) };
  } catch {
    return undefined;
  }
};

/** An allowed entry admits its own URL and any path below it on the same scheme, host and port. */
const endpointAllowed = (url: string, allowed: readonly string[]): boolean => {
  const want = partsOf(url);
  return (
    want !== undefined &&
    allowed.some((a) => {
      const ok = partsOf(a);
      return ok !== undefined && ok.origin === want.origin && ok.path.every((seg, i) => want.path[i] === seg);
    })
  );
};

/** The first dotted path where two JSON values differ ("" when equal). */
const firstDifference = (a: unknown, b: unknown, at = ""): string | undefined => {
  if (a === b) return undefined;
  if (a && b && typeof a === "object" && typeof b === "object") {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const own = (o: object) => (Object.hasOwn(o, k) ? (o as Record<string, unknown>)[k] : undefined);
      const d = firstDifference(own(a), own(b), at ? `${at}.${k}` : k);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  return at;
};

/** The worker's own folder for one run's files: `<runsDir>/.workers/<run>`, the run id cleaned to one plain name. */
const workerRunDir = (trust: Pick<WorkerTrust, "runsDir">, run: string): string =>
  join(
    trust.runsDir,
    ".workers",
    run
      .replace(/[^A-Za-z0-9_.+-]/g, "_")
      .replace(/^\.+/, "_")
      .slice(0, 120) || "_",
  );

/**
 * The checks on an episode job's config before anything of it is used: no secret (a coordinator strips them;
 * keys come from this machine), the actor's endpoint allowed. Returns the llm settings the worker builds the actor
 * from: every path is the worker's (worker.yaml, else under `<runsDir>/.workers/<run>/`); the job's paths are ignored.
 */
export const trustedEpisodeLlm = (cfg: RunConfig, raw: Record<string, unknown>, schema: z.ZodType, trust: WorkerTrust, run: string): RunConfig["llm"] => {
  const secret = firstDifference(raw, withoutSecrets(raw, schema));
  if (secret !== undefined)
    throw new ConfigError(
      `${secret}: the job carries a secret; a worker takes keys and passwords only from its own environment (hexa run strips them from jobs)`,
    );
  if (cfg.llm.actor.provider === "llama-cpp")
    throw new ConfigError(
      "llm.actor.provider: this worker does not load a model file a job names (got provider: llama-cpp); run embedded models with hexa run",
    );
  const url = cfg.llm.actor.baseURL;
  if (url !== undefined && !endpointAllowed(url, trust.endpoints))
    throw new ConfigError(
      `llm.actor.baseURL: this worker does not send requests to ${JSON.stringify(urlWithoutPassword(url))} (it allows ${trust.endpoints.map((e) => urlWithoutPassword(e)).join(", ") || "none"}); start it with --allow-endpoint URL, or leave baseURL unset to use the worker's OPENAI_BASE_URL`,
    );
  const { cacheDir: jobCache, auditLog: _ignored, ...llm } = cfg.llm;
  const own = workerRunDir(trust, run);
  const cacheDir = trust.llm.cacheDir ?? (jobCache !== undefined ? join(own, "llm-cache") : undefined);
  const auditLog = trust.llm.auditLog ?? join(own, "llm-log.jsonl");
  return { ...llm, auditLog, ...(cacheDir ? { cacheDir } : {}) };
};
