import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ChatModel } from "../llm/chat-model.ts";
import { roleKeyVar } from "../llm/config.ts";
import { ConfigError } from "../errors.ts";
import { interphyreFamily } from "../loop/families/interphyre.ts";
import type { LevelFamily } from "../loop/family.ts";
import { parseRunConfigYaml, usesBank, type RunConfig } from "../loop/run-config.ts";
import { readCertified } from "../store/certified-seeds.ts";
import type { SkillIndex } from "../store/chroma-index.ts";
import type { ChromaHandle } from "../store/chroma-server.ts";
import { makeEmbedder, type EmbeddingConfig } from "../store/embedding.ts";

/** Reads and validates a run config file; errors name the file and the field. */
export const readRunConfig = (path: string): RunConfig => {
  if (!existsSync(path)) throw new ConfigError(`${path}: no such config file; see configs/ for examples`);
  return parseRunConfigYaml(readFileSync(path, "utf8"), path);
};

export const familyOf = (c: RunConfig): LevelFamily => {
  switch (c.family) {
    case "interphyre":
      return interphyreFamily((level) => readCertified(level)?.seeds.map((s) => s.seed) ?? []);
  }
};

const needsHint = (role: string, resuming: boolean) => (e: unknown) => {
  if (!(e instanceof ConfigError)) throw e;
  throw new ConfigError(
    resuming
      ? `${e.message}. API keys are never stored in a run directory: export ${roleKeyVar(`llm.${role}`)} or OPENAI_API_KEY and resume again`
      : `${e.message} (the ${role} role needs a model; or run without one: agent: heuristic, evolver: heuristic)`,
  );
};

/** The role models a config needs (none for the heuristic agent with the heuristic evolver); calls logged to the run's llm-log.jsonl. */
export const modelsFor = async (c: RunConfig, runPath: string, opts: { resuming?: boolean } = {}): Promise<{ actorModel?: ChatModel; evolverModel?: ChatModel }> => {
  const needActor = c.agent !== "heuristic";
  const needEvolver = usesBank(c) && c.evolver === "llm";
  if (!needActor && !needEvolver) return {};
  // Loaded only when a model is used: langchain costs about a second of start-up.
  const { createRoleModel } = await import("../llm/role-model.ts");
  const llm = { ...c.llm, auditLog: c.llm.auditLog ?? join(runPath, "llm-log.jsonl") };
  const build = (role: "actor" | "evolver") => {
    try {
      return createRoleModel(role, llm, { env: process.env });
    } catch (e) {
      return needsHint(role, opts.resuming ?? false)(e);
    }
  };
  return {
    ...(needActor ? { actorModel: build("actor") } : {}),
    ...(needEvolver ? { evolverModel: build("evolver") } : {}),
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
