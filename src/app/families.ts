import { shippedFamilies } from "../../levels/index.ts";
import { ConfigError } from "../errors.ts";
import type { LevelFamily } from "../family/family.ts";
import type { FamilyHost } from "../family/host.ts";
import type { FamilyModule } from "../family/registry.ts";
import { EPISODES } from "../backend/redis/queue-kinds.ts";
import { importPluginModules } from "./plugin-modules.ts";

/**
 * The level families of one hexa process, the only way to a family (docs/ARCHITECTURE.md §2): the families hexa
 * ships (levels/index.ts) and any a user adds without editing hexa, named in HEXA_FAMILIES. Each family is built
 * once, by `load`, which a command awaits before it reads one: a command that reads none (`--version`,
 * `levels list` of another family) never imports their modules. The registry is part of the run context
 * (src/app/context.ts); nothing about it is module state.
 */
export interface FamilyRegistry {
  modules(): readonly FamilyModule[];
  ids(): string[];
  /** The family a command or config that names none means: the registry's first (levels/index.ts). */
  defaultId(): string;
  /** Builds these families (default: all) once; `get` then returns them. */
  load(ids?: readonly string[]): Promise<void>;
  /** A family `load` built; throws for an unknown id (naming the known ones) or one not built yet. */
  get(id: string): LevelFamily;
  /** All families (for composing RunConfig with every family's slice); `load()` first. */
  all(): LevelFamily[];
  /** The queue kinds a worker may serve: episodes, and those the families add. */
  queueKinds(): string[];
  /** Whether a family was built (a worker must route its jobs before). */
  anyBuilt(): boolean;
  /** Stops what the families started (trainer processes); every command that played calls it before it returns. */
  close(): Promise<void>;
}

const ENV = "HEXA_FAMILIES";

/** The families HEXA_FAMILIES names (module paths separated by ':', each exporting a FamilyModule as default or `family`). */
const pluginFamilies = async (env: NodeJS.ProcessEnv, known: FamilyModule[]): Promise<FamilyModule[]> => {
  const added: FamilyModule[] = [];
  for (const { path, exports } of await importPluginModules(env, ENV, "a FamilyModule")) {
    const m = (exports.default ?? exports.family) as Partial<FamilyModule> | undefined;
    if (!m || typeof m.id !== "string" || typeof m.build !== "function" || typeof m.title !== "string") {
      throw new ConfigError(`${ENV}: ${JSON.stringify(path)} exports no FamilyModule (an object with id, title and build) as default or \`family\``);
    }
    if ([...known, ...added].some((x) => x.id === m.id))
      throw new ConfigError(`${ENV}: ${JSON.stringify(path)} adds family '${m.id}', which exists already; rename its id`);
    added.push(m as FamilyModule);
  }
  return added;
};

/** A registry over these family modules. */
const familyRegistry = (modules: readonly FamilyModule[]): FamilyRegistry => {
  const built = new Map<string, LevelFamily>();
  const ids = () => modules.map((m) => m.id);
  const moduleOf = (id: string): FamilyModule => {
    const m = modules.find((x) => x.id === id);
    if (!m) throw new ConfigError(`unknown family '${id}'; known: ${ids().join(", ")}`);
    return m;
  };
  const get = (id: string): LevelFamily => {
    moduleOf(id);
    const family = built.get(id);
    if (!family) throw new Error(`family '${id}' is read before the registry's load built it`);
    return family;
  };
  return {
    modules: () => modules,
    ids,
    defaultId: () => modules[0]!.id,
    load: async (wanted = ids()) => {
      for (const id of wanted) if (!built.has(id)) built.set(id, await moduleOf(id).build());
    },
    get,
    all: () => ids().map(get),
    queueKinds: () => [EPISODES, ...modules.flatMap((m) => m.worker?.queues ?? [])],
    anyBuilt: () => built.size > 0,
    close: async () => {
      await Promise.all([...built.values()].map((f) => f.close?.()));
    },
  };
};

/** hexa's families and those HEXA_FAMILIES adds, the shipped ones given the host their commands reach. */
export const openFamilyRegistry = async (host: FamilyHost, env: NodeJS.ProcessEnv = process.env): Promise<FamilyRegistry> => {
  const shipped = shippedFamilies(host);
  return familyRegistry([...shipped, ...(await pluginFamilies(env, shipped))]);
};
