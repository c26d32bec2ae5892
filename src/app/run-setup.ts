import { execaSync } from "execa";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SpendGate } from "../llm/budget.ts";
import type { RoleModel } from "../llm/ask.ts";
import { isEmbedded, roleKeyVar } from "../llm/config.ts";
import { ConfigError } from "../errors.ts";
import { canonicalJson, sha256Hex } from "../util/canonical-json.ts";
import type { FamilyRegistry } from "./families.ts";
import { parseRunConfigYaml, usesBank, type RunConfig } from "../loop/run-config.ts";
import type { SkillIndex } from "../store/chroma-index.ts";
import type { ChromaHandle } from "../store/chroma-server.ts";
import { makeEmbedder, type EmbeddingConfig } from "../store/embedding.ts";
import { parseYamlText, readConfigText } from "../util/yaml-file.ts";
import type { RunDir } from "../store/run-dir.ts";
import type { ModelsFactory, RunModels } from "./run-services.ts";
import type { EmbeddedModels } from "./embedded-models.ts";
import type { CodeVersion } from "../store/run-records.ts";

/** Reads and validates a run config file; errors name the file and the field. */
export const readRunConfig = (families: FamilyRegistry, path: string): RunConfig => {
  return parseRunConfigYaml(readConfigText(path), path, families.all());
};

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The running hexa: its git commit when run from a checkout (one `git rev-parse`, a few ms), and the package version. */
export const codeVersion = (): CodeVersion => {
  const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
  let commit: string | null = null;
  try {
    commit = execaSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, stdin: "ignore", stderr: "ignore", timeout: 5000 }).stdout.trim() || null;
  } catch {
    // Not a checkout (an installed package) or no git: the package version alone names the code.
  }
  return { version, commit };
};

export const codeLabel = (c: CodeVersion): string => (c.commit ? `${c.version} (commit ${c.commit.slice(0, 12)})` : c.version);

/**
 * config.yaml's data (the resolved config as the creating process wrote it, every default spelled out) and its
 * sha256. Of the file's data, not of the config parsed now: a later hexa that adds a key with a default (or
 * moves one) reads the same file as a different resolved config, and that is no edit. The spend cap is left
 * out: it changes how far a run goes, not what it measures, and a run stopped by it resumes with a raised one.
 */
export const configDigest = (configYaml: string): { config: unknown; hash: string } => {
  const data: unknown = JSON.parse(JSON.stringify(parseYamlText(configYaml, "config.yaml") ?? null));
  if (data !== null && typeof data === "object" && !Array.isArray(data)) delete (data as Record<string, unknown>).budget;
  // Key order does not change a config, so the hash is of key-sorted text (data is plain JSON, so parsing that text back gives the key-sorted copy).
  return { config: JSON.parse(canonicalJson(data)) as unknown, hash: sha256Hex(data) };
};

/**
 * A run directory's config. A run keeps the config it started with (run.json holds its hash): an edit would mix two experiments
 * in one directory, so it is refused with the keys it changed. A run made before the hash was recorded is
 * taken as it is, with a note.
 */
export const runDirConfig = (families: FamilyRegistry, dir: RunDir, where: string, note: (line: string) => void): RunConfig => {
  const text = dir.configText();
  const cfg = parseRunConfigYaml(text, where, families.all());
  const { hash, config } = configDigest(text);
  if (dir.meta.configHash === undefined)
    note(`note: ${dir.path}/run.json records no config hash (the run was made before hexa kept one); config.yaml is taken as it is`);
  else if (dir.meta.configHash !== hash) {
    const keys = dir.meta.config === undefined ? ["(unknown: run.json holds only the hash)"] : changedKeys(dir.meta.config, config);
    throw new ConfigError(
      `${where}: edited since the run started (changed: ${keys.join(", ")}); a resumed run keeps its config, so restore ${keys.length === 1 ? "that key" : "those keys"} (run.json's "config" has the original values), or start a new run with the new config`,
    );
  }
  return cfg;
};

/** The dotted keys whose values differ between two configs (plain data). */
export const changedKeys = (a: unknown, b: unknown, at = ""): string[] => {
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
  if (isObj(a) && isObj(b)) {
    return [...new Set([...Object.keys(a), ...Object.keys(b)])].sort().flatMap((k) => changedKeys(a[k], b[k], at ? `${at}.${k}` : k));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [at || "(config)"];
};

const needsHint = (role: string, resuming: boolean) => (e: unknown) => {
  if (!(e instanceof ConfigError)) throw e;
  throw new ConfigError(
    resuming
      ? `${e.message}. API keys are never stored in a run directory: export ${roleKeyVar(`llm.${role}`)} or OPENAI_API_KEY and resume again`
      : `${e.message} (the ${role} role needs a model; or run without one: agent: heuristic, evolver: heuristic)`,
  );
};

/** A role's model by role and model name, e.g. one that answers from a recorded llm-log.jsonl (`hexa verify`). */
type RoleModelSource = (role: "actor" | "evolver", name: string) => RoleModel;

/** The roles a config plays with a model: none for the heuristic agent with the heuristic evolver. */
const rolesNeeded = (c: RunConfig) => ({ actor: c.agent !== "heuristic", evolver: usesBank(c) && c.evolver === "llm" });

/** The role models a config needs, taken from `source` instead of an endpoint. */
export const modelsFrom =
  (source: RoleModelSource): ModelsFactory =>
  async (c) => {
    const need = rolesNeeded(c);
    return {
      ...(need.actor ? { actorModel: source("actor", c.llm.actor.model) } : {}),
      ...(need.evolver ? { evolverModel: source("evolver", c.llm.evolver.model) } : {}),
    };
  };

/** The role models a config needs (none for the heuristic agent with the heuristic evolver) over its endpoints; calls logged to the run's llm-log.jsonl. */
export const modelsFor = async (
  c: RunConfig,
  runPath: string,
  opts: { resuming?: boolean; gate?: SpendGate | undefined; onNotice?: (message: string) => void; embedded?: EmbeddedModels } = {},
): Promise<RunModels> => {
  const need = rolesNeeded(c);
  if (!need.actor && !need.evolver) return {};
  const embeds = (need.actor && isEmbedded(c.llm.actor)) || (need.evolver && isEmbedded(c.llm.evolver));
  const llama = embeds ? await opts.embedded?.get() : undefined;
  // Loaded only when a model is used: langchain costs about a second of start-up.
  const { createRoleModel } = await import("../llm/role-model.ts");
  const llm = { ...c.llm, auditLog: c.llm.auditLog ?? join(runPath, "llm-log.jsonl") };
  const build = (role: "actor" | "evolver") => {
    try {
      return createRoleModel(role, llm, {
        env: process.env,
        ...(opts.gate ? { gate: opts.gate } : {}),
        ...(opts.onNotice ? { onNotice: opts.onNotice } : {}),
        ...(llama ? { llama } : {}),
      });
    } catch (e) {
      return needsHint(role, opts.resuming ?? false)(e);
    }
  };
  return {
    ...(need.actor ? { actorModel: build("actor") } : {}),
    ...(need.evolver ? { evolverModel: build("evolver") } : {}),
  };
};

export interface OpenIndex {
  index: SkillIndex;
  url: string;
  stop(): Promise<void>;
}

/**
 * The Chroma skill index: CHROMA_URL when set (it must answer), else an embedded server over dataDir; the
 * caller stops it. Keys are not stored in a run's config.yaml, so an OpenAI embedding finds its key in the
 * environment.
 */
export const openSkillIndex = async (dataDir: string, e: EmbeddingConfig): Promise<OpenIndex> => {
  // Loaded only when the index is used: chromadb costs about half a second of start-up.
  const [{ chromaClient, SkillIndex }, { ensureChroma }] = await Promise.all([import("../store/chroma-index.ts"), import("../store/chroma-server.ts")]);
  const handle: ChromaHandle = await ensureChroma(process.env, dataDir);
  try {
    const embedding = e.provider === "openai" && !e.apiKey ? { ...e, apiKey: process.env.HEXA_EMBEDDING_API_KEY ?? process.env.OPENAI_API_KEY ?? "" } : e;
    return { index: await SkillIndex.open(chromaClient(handle.url), makeEmbedder(embedding)), url: handle.url, stop: handle.stop };
  } catch (err) {
    await handle.stop();
    throw err;
  }
};
