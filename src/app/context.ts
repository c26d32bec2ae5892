import { embeddedModels, type EmbeddedModels } from "./embedded-models.ts";
import { type FamilyRegistry, openFamilyRegistry } from "./families.ts";
import type { FamilyHost } from "../family/host.ts";
import { appHost } from "./host.ts";
import type { ModelsFactory } from "./run-services.ts";
import { loadActorMiddleware, type ActorMiddleware } from "./middleware-plugins.ts";

/**
 * What one hexa process is wired with, built once by the composition root and passed down to what needs it
 * (docs/ARCHITECTURE.md, the run context): no module holds any of it. A run's spend gate is made per run from
 * its config and flags (src/app/run-spend.ts) and travels with the run; a family's trainer source belongs to its
 * module value in `families` (levels/reward-search/module.ts).
 */
export interface AppContext {
  /** The level families: hexa's and those HEXA_FAMILIES adds, each built once. */
  families: FamilyRegistry;
  /** What a family's own commands ask of hexa (play a compare grid, the code version, write a report). */
  host: FamilyHost;
  /** The role models of a run: the config's endpoints, or (`hexa verify`) answers from a recorded log. */
  models: ModelsFactory;
  /** The user's langchain middleware (HEXA_MIDDLEWARE) for every episode a model plays; none under `hexa verify`. */
  actorMiddleware: ActorMiddleware;
  /** The embedded models (`provider: llama-cpp`) of this process: loaded on first use, closed when the command ends. */
  embedded: EmbeddedModels;
}

/** The config's models as a run's role models; the model layer is loaded by the first run, not by `hexa levels list`. */
const configModels =
  (embedded: EmbeddedModels): ModelsFactory =>
  async (cfg, runPath, o) =>
    (await import("./run-setup.ts")).modelsFor(cfg, runPath, { ...o, embedded });

/**
 * The context of a hexa process: the families of `env` (HEXA_FAMILIES), the host over them, models over the
 * endpoints, the actor middleware of `env` (HEXA_MIDDLEWARE).
 */
export const createAppContext = async (env: NodeJS.ProcessEnv = process.env): Promise<AppContext> => {
  const slot: { families?: FamilyRegistry } = {};
  // The shipped families' commands are given the host, and the host plays grids over the registry they are in.
  const embedded = embeddedModels();
  const host = appHost(() => slot.families!, embedded);
  slot.families = await openFamilyRegistry(host, env);
  return { families: slot.families, host, models: configModels(embedded), actorMiddleware: await loadActorMiddleware(env), embedded };
};
