import { dirname, resolve } from "node:path";
import type { RedisLedger } from "../backend/redis/spend-ledger.ts";
import type { SpendGate } from "../llm/budget.ts";
import type { RoleModel } from "../llm/ask.ts";
import type { EpisodeBackend } from "../loop/episode-backend.ts";
import type { RunConfig } from "../loop/run-config.ts";
import type { UsageLine } from "../store/run-records.ts";
import type { LlamaCppModelConfig } from "../llm/llama-cpp/config.ts";
import { openEpisodes, routeSearchToQueues, sharedLedger } from "./backend.ts";
import type { EmbeddedModels } from "./embedded-models.ts";
import { doctorSkipped, preflight, rolesOf, type ServedModels } from "./preflight.ts";
import { openSkillIndex, type OpenIndex } from "./run-setup.ts";
import type { FamilyRegistry } from "./families.ts";
import type { RunPlan } from "./run-plan.ts";
import { spendGate, type SpendFlags } from "./run-spend.ts";

/** The model clients of a run's roles; a role the config does not use has none. */
export interface RunModels {
  actorModel?: RoleModel;
  evolverModel?: RoleModel;
}

/**
 * Builds a run's model clients: the run context's (src/app/context.ts), by default `modelsFor` (src/app/run-setup.ts)
 * over the config's `llm:` roles; under `hexa verify`, answers from the recorded llm-log.jsonl.
 * `runPath` is the run directory (the audit log's home); `gate`, when set, must meter every call; `onNotice`
 * takes a server quirk worth telling the user once.
 */
export type ModelsFactory = (
  cfg: RunConfig,
  runPath: string,
  o: { resuming: boolean; gate?: SpendGate | undefined; onNotice: (message: string) => void },
) => Promise<RunModels>;

/** The flags a run start reads beside its config. */
export interface RunFlags extends SpendFlags {
  /** `--backend`: overrides the config's `backend:`. */
  backend?: string | undefined;
  /** `--no-doctor` sets it false: the endpoints are not probed first. */
  doctor?: boolean | undefined;
}

/** What a run holds open while it plays: closed together by `closeServices`, whatever happened. */
export interface RunServices {
  served?: ServedModels;
  gate?: SpendGate;
  ledger?: RedisLedger;
  models: RunModels;
  index?: OpenIndex;
  episodes?: EpisodeBackend;
}

/** Closes what `connectServices` opened; each part at most once. */
export const closeServices = async (s: Partial<RunServices>): Promise<void> => {
  await Promise.all([s.index?.stop(), s.episodes?.close?.()]);
  await s.ledger?.close();
};

const charge = (g: SpendGate) => (l: UsageLine) =>
  g.ledger.settle(`llm.${l.role}`, { usd: 0, tokens: 0 }, { usd: l.costUsd, tokens: l.input + l.output, output: l.output });

/**
 * Probes the endpoints, opens the spend ledger and gate, the models, Chroma and the episode backend: each one that
 * does not answer is refused before the run directory exists, and what was opened before it is closed again.
 */
export const connectServices = async (
  plan: RunPlan,
  o: {
    families: FamilyRegistry;
    runsDir: string;
    flags: RunFlags;
    note: (line: string) => void;
    onNotice: (message: string) => void;
    models: ModelsFactory;
    /** The process's embedded models: an embedded role's file is hashed once, for the record and the cache key. */
    embedded?: EmbeddedModels;
  },
): Promise<RunServices> => {
  const { cfg, existing, where, id } = plan;
  const doctor = { env: process.env, cacheDir: existing ? dirname(existing.path) : o.runsDir, where };
  const gguf = o.embedded && ((config: LlamaCppModelConfig, at: string) => o.embedded!.get().then((m) => m.served(config, at)));
  const served = doctorSkipped({ ...o.flags }, process.env)
    ? undefined
    : await preflight(cfg.llm, rolesOf(cfg, plan.search !== undefined), { ...doctor, ...(gguf ? { gguf } : {}) });
  const backend = o.flags.backend ?? cfg.backend;
  const backendWhere = o.flags.backend === undefined ? `${where}: backend` : "--backend";
  // On workers, the coordinator's gate and theirs count in one ledger in Redis (written anew once the run is locked).
  const makeLedger = await sharedLedger(backend, backendWhere, id);
  const opened: Partial<RunServices> = {};
  try {
    const ledgerOf =
      makeLedger && ((cap: Parameters<typeof makeLedger>[0], spent: Parameters<typeof makeLedger>[1]) => (opened.ledger = makeLedger(cap, spent)));
    const gate = spendGate(plan, { runsDir: o.runsDir, flags: o.flags, note: o.note, ledgerOf });
    if (gate) opened.gate = gate;
    const models = await o.models(cfg, existing?.path ?? resolve(o.runsDir, id), {
      resuming: existing !== undefined,
      onNotice: o.onNotice,
      ...(gate ? { gate } : {}),
    });
    opened.models = models;
    // A Chroma that does not answer is refused before the directory exists, so no half-made run is left behind.
    if (cfg.skillIndex.enabled) opened.index = await openSkillIndex(cfg.skillIndex.dataDir, cfg.skillIndex.embedding);
    const episodes = await openEpisodes(o.families, backend, backendWhere, {
      run: id,
      config: cfg,
      log: o.note,
      ...(gate ? { budget: gate.cap, charge: charge(gate) } : {}),
    });
    if (episodes) opened.episodes = episodes;
    // A whole search plays no episode: its trainings are the work that goes to the workers.
    if (plan.search !== undefined) await routeSearchToQueues(o.families, cfg.family, backend, backendWhere, o.note);
    return { ...opened, ...(served ? { served } : {}), models };
  } catch (e) {
    await closeServices(opened);
    throw e;
  }
};
