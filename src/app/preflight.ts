import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../errors.ts";
import { isEmbedded, resolveModelConfig, type Env, type LlmConfig, type Role } from "../llm/config.ts";
import { EndpointReport, probeEndpoint, refreshServed } from "../llm/doctor.ts";
import { problemsOf, type Probed } from "../llm/doctor-report.ts";
import type { LlamaCppModelConfig } from "../llm/llama-cpp/config.ts";
import { embeddedServedRole, GgufServed, ggufServedOf } from "../llm/llama-cpp/served.ts";
import { usesBank, type RunConfig } from "../loop/run-config.ts";
import { DEFAULT_CONTEXT_TOKENS } from "./context-tokens.ts";
import { writeJsonAtomic } from "../store/jsonl.ts";

/** A cached report is reused for this long: a server restarted with other flags is seen within the hour. */
const CACHE_MS = 60 * 60_000;
const CACHE_FILE = "doctor-cache.json";

/** The LLM roles a run of this config calls (a family's search calls only the actor's model: its proposer). */
export const rolesOf = (cfg: RunConfig, search: boolean): Role[] => [
  ...(cfg.agent !== "heuristic" ? (["actor"] as const) : []),
  ...(!search && usesBank(cfg) && cfg.evolver === "llm" ? (["evolver"] as const) : []),
];

const Cache = z.record(z.string(), EndpointReport);

export interface ProbeRolesOptions {
  env: Env;
  contextTokens?: number;
  /** A folder whose doctor-cache.json keeps each endpoint+model's report for an hour. */
  cacheDir?: string;
  now?: () => Date;
  /** What an embedded role's file is (the run context's LlamaModels, which hashes each file once). */
  gguf?: (config: LlamaCppModelConfig, where: string) => Promise<GgufServed>;
}

/** Probes each distinct endpoint+model of `roles` once (roles sharing one share the probe). */
export const probeRoles = async (llm: LlmConfig, roles: readonly Role[], o: ProbeRolesOptions): Promise<Probed[]> => {
  const now = o.now ?? (() => new Date());
  const cachePath = o.cacheDir ? join(o.cacheDir, CACHE_FILE) : undefined;
  const parsedCache = cachePath && existsSync(cachePath) ? Cache.safeParse(JSON.parse(readFileSync(cachePath, "utf8"))) : undefined;
  const cache = parsedCache?.success ? parsedCache.data : {};
  const groups = new Map<string, Omit<Probed, "report">>();
  for (const role of roles) {
    const given = llm[role];
    // An embedded model has no endpoint to probe: its file is checked where it is loaded (embeddedServed).
    if (isEmbedded(given)) continue;
    const config = resolveModelConfig(given, o.env, `llm.${role}`);
    const key = `${config.baseURL} ${config.model}`;
    const group = groups.get(key);
    if (group) group.roles.push(role);
    else groups.set(key, { roles: [role], config });
  }
  const probed: Probed[] = [];
  for (const [key, g] of groups) {
    const cached = cache[key];
    const ep = { baseURL: g.config.baseURL, apiKey: g.config.apiKey, model: g.config.model, timeoutMs: Math.min(g.config.timeoutMs, 60_000) };
    const vision = g.roles.includes("vision");
    const fresh = cached !== undefined && now().getTime() - Date.parse(cached.checkedAt) < CACHE_MS && (!vision || cached.vision !== undefined);
    const report = fresh ? await refreshServed(ep, cached) : await probeEndpoint(ep, { contextTokens: o.contextTokens ?? DEFAULT_CONTEXT_TOKENS, vision });
    // A refreshed served model is not written back (checkedAt dates the capability checks); a failed probe is
    // not kept either, so a server started a minute later is seen.
    if (!fresh && report.chat) cache[key] = report;
    probed.push({ ...g, report });
  }
  if (o.cacheDir) {
    mkdirSync(o.cacheDir, { recursive: true });
    writeJsonAtomic(cachePath!, cache);
  }
  return probed;
};

/**
 * What each role's endpoint answered as: the model name it reported and its system_fingerprint; for an embedded
 * model, what its file is (src/llm/llama-cpp/served.ts), its fingerprint the file's hash.
 */
export const ServedModels = z.object({
  schemaVersion: z.literal(1),
  roles: z.record(
    z.string(),
    z.object({ requested: z.string(), served: z.string().nullable(), fingerprint: z.string().nullable(), checkedAt: z.string(), gguf: GgufServed.optional() }),
  ),
});
export type ServedModels = z.infer<typeof ServedModels>;

const servedOf = (probed: readonly Probed[]): ServedModels => ({
  schemaVersion: 1,
  roles: Object.fromEntries(
    probed.flatMap((p) =>
      p.roles.map((role) => [
        role,
        { requested: p.report.model, served: p.report.servedModel, fingerprint: p.report.fingerprint, checkedAt: p.report.checkedAt },
      ]),
    ),
  ),
});

/**
 * The checks of `hexa doctor` before a run spends anything: a role that cannot work on its endpoint stops the
 * run here, with every reason. Returns what each role's endpoint answered as.
 */
export const preflight = async (llm: LlmConfig, roles: readonly Role[], o: ProbeRolesOptions & { where: string }): Promise<ServedModels | undefined> => {
  if (!roles.length) return undefined;
  const probed = await probeRoles(llm, roles, o);
  const problems = probed.flatMap((p) => p.roles.flatMap((role) => problemsOf(role, p.report)));
  if (problems.length) {
    throw new ConfigError(`${problems.join("; ")}. Nothing was spent; hexa doctor ${o.where} shows every check (--no-doctor skips them)`);
  }
  const served = servedOf(probed);
  return { ...served, roles: { ...served.roles, ...(await embeddedServed(llm, roles, o)) } };
};

/** The served-models entries of the embedded roles: a missing or unreadable file is refused here, naming the field. */
const embeddedServed = async (llm: LlmConfig, roles: readonly Role[], o: ProbeRolesOptions): Promise<ServedModels["roles"]> => {
  const entries: ServedModels["roles"] = {};
  const now = o.now ?? (() => new Date());
  for (const role of roles) {
    const config = llm[role];
    if (!isEmbedded(config)) continue;
    const gguf = await (o.gguf ?? fileServed)(config, `llm.${role}`);
    entries[role] = embeddedServedRole(config.model, gguf, now());
  }
  return entries;
};

/** What a file is, read without a run context (node-llama-cpp is loaded only here). */
const fileServed = async (config: LlamaCppModelConfig, where: string): Promise<GgufServed> => {
  const { openModelFile } = await import("../llm/llama-cpp/model-file.ts");
  return ggufServedOf(await openModelFile(config.model, `${where}.model`));
};

const SERVED_FILE = "served-models.json";

const recordServed = (runPath: string, served: ServedModels): void => writeJsonAtomic(join(runPath, SERVED_FILE), served);

/**
 * Warning lines for each role whose endpoint now answers as another model or fingerprint than when the run
 * was made: results before and after may not be comparable (method.md §9: results on one model snapshot).
 */
export const servedChanges = (runPath: string, now: ServedModels): string[] => {
  const path = join(runPath, SERVED_FILE);
  if (!existsSync(path)) return [];
  const parsed = ServedModels.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success) return [`warning: ${path} is not a served-models record; the model check is skipped`];
  return Object.entries(now.roles).flatMap(([role, n]) => {
    const was = parsed.data.roles[role];
    if (!was) return [];
    const changed = [
      was.served !== n.served ? `model ${was.served ?? "(none reported)"} → ${n.served ?? "(none reported)"}` : "",
      was.fingerprint !== n.fingerprint ? `${n.gguf ? "model file" : "system_fingerprint"} ${was.fingerprint ?? "(none)"} → ${n.fingerprint ?? "(none)"}` : "",
    ].filter(Boolean);
    return changed.length
      ? [
          `warning: llm.${role} now answers as another model than when ${runPath} was made (${changed.join(", ")}); results before and after may differ for that reason`,
        ]
      : [];
  });
};

/** The pre-flight is skipped by --no-doctor, or HEXA_NO_DOCTOR=1 (set by the tests: a scripted server answers in order, and probes would take its answers). */
export const doctorSkipped = (argv: Record<string, unknown>, env: Env): boolean => argv.doctor === false || env.HEXA_NO_DOCTOR === "1";

/** Says which roles now answer as another model, and records what they answer as when the run has no record yet. */
export const noteServed = (runPath: string, served: ServedModels, note: (line: string) => void): void => {
  servedChanges(runPath, served).forEach(note);
  if (!existsSync(join(runPath, SERVED_FILE))) recordServed(runPath, served);
};
