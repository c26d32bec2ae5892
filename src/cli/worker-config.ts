import { resolve } from "node:path";
import { z } from "zod";
import { ConfigError } from "../errors.ts";
import { DEFAULT_BASE_URL } from "../llm/config.ts";
import { secret, withoutSecrets } from "../util/secret-fields.ts";
import { readYamlFile } from "../util/yaml-file.ts";
import type { WorkerTrust } from "./worker-trust.ts";

/**
 * `hexa worker --config worker.yaml`: the worker's own settings (docs/security.md). Everything a job could
 * otherwise steer (endpoints, folders, a trainer command) is set here or by flags, never by a job. A family's
 * worker settings sit under its id (e.g. `reward-search: {trainer: {command: [...]}}`).
 */
const WorkerConfigBase = z.strictObject({
  redis: secret(z.string().min(1), "url-password").optional().describe("the Redis URL; --redis overrides it (HEXA_REDIS_PASSWORD supplies a password)"),
  runsDir: z
    .string()
    .min(1)
    .default("runs")
    .describe("the worker's runs folder: the worker's files for jobs go under its .workers/ (the paths a job names are ignored)"),
  allowEndpoints: z
    .array(z.url())
    .default([])
    .describe("model endpoints jobs may name (llm.actor.baseURL), beside the worker's OPENAI_BASE_URL (OpenAI's only when none is named)"),
  tls: z
    .strictObject({
      ca: z.string().min(1).optional().describe("PEM file of the CA that signed Redis' certificate (else HEXA_REDIS_TLS_CA; unset: the system's CAs)"),
      cert: z.string().min(1).optional().describe("PEM file of this worker's client certificate (else HEXA_REDIS_TLS_CERT)"),
      key: z.string().min(1).optional().describe("PEM file of the client certificate's key (else HEXA_REDIS_TLS_KEY)"),
    })
    .optional()
    .describe("TLS files for a rediss:// Redis"),
  jobKeyFile: z.string().min(1).optional().describe("a file holding the job key (else HEXA_JOB_KEY); the coordinator must use the same key"),
  llm: z
    .strictObject({
      cacheDir: z.string().min(1).optional().describe("the worker's LLM response cache, used for every job"),
      auditLog: z.string().min(1).optional().describe("the worker's model-call log, used for every job (default: <runsDir>/.workers/<run>/llm-log.jsonl)"),
    })
    .prefault({}),
});
type WorkerConfigBase = z.infer<typeof WorkerConfigBase>;
export type WorkerConfig = WorkerConfigBase & { families: Record<string, unknown> };

/** Worker configs are a few lines; anything larger is not one. */
const MAX_BYTES = 64 * 1024;

/** The schema with a key per family that has worker settings, so a typo'd key is refused, not ignored. */
const schemaFor = (familyIds: readonly string[]) => WorkerConfigBase.extend(Object.fromEntries(familyIds.map((id) => [id, z.unknown().optional()])));

/** Reads and checks worker.yaml; undefined `path`: the defaults. Every error names the file and the key. */
export const loadWorkerConfig = (path: string | undefined, familyIds: readonly string[]): WorkerConfig => {
  const label = `--config ${path}`;
  const raw: unknown =
    path === undefined
      ? {}
      : (readYamlFile(path, {
          label,
          missing: `${label}: cannot read it (ENOENT); name a YAML file`,
          maxBytes: MAX_BYTES,
          sizeHint: "a worker config is a few lines",
        }) ?? {});
  const schema = schemaFor(familyIds);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    const keys = i.code === "unrecognized_keys" ? ` ${i.keys.join(", ")}` : "";
    throw new ConfigError(
      `--config ${path}: ${i.path.join(".") || "(config)"}:${keys} ${i.message} (known keys: ${Object.keys(schema.shape).join(", ")}; shown without secrets: ${JSON.stringify(withoutSecrets(raw, schema)).slice(0, 200)})`,
    );
  }
  const base = parsed.data as WorkerConfigBase & Record<string, unknown>;
  return { ...base, families: Object.fromEntries(familyIds.flatMap((id) => (base[id] === undefined ? [] : [[id, base[id]]]))) };
};

/**
 * The endpoints this machine's environment points the actor at (src/llm/config.ts): OPENAI_BASE_URL, else OpenAI's
 * own, but that default only while the worker names no endpoint of its own (`explicit`).
 */
const environmentEndpoints = (env: NodeJS.ProcessEnv, explicit: number): string[] =>
  env.OPENAI_BASE_URL ? [env.OPENAI_BASE_URL] : explicit ? [] : [DEFAULT_BASE_URL];

/** What the worker trusts, from its config, its flags (which win) and its environment. */
export const workerTrustOf = (c: WorkerConfig, flags: { runsDir?: string; allowEndpoints: readonly string[] }, env: NodeJS.ProcessEnv): WorkerTrust => {
  for (const url of flags.allowEndpoints)
    if (!z.url().safeParse(url).success) throw new ConfigError(`--allow-endpoint: not a URL (got ${JSON.stringify(url)}); write e.g. http://127.0.0.1:8000/v1`);
  return {
    runsDir: resolve(flags.runsDir ?? c.runsDir),
    endpoints: [...flags.allowEndpoints, ...c.allowEndpoints, ...environmentEndpoints(env, flags.allowEndpoints.length + c.allowEndpoints.length)],
    llm: c.llm,
  };
};
