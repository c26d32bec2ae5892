import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { FAMILIES } from "../../levels/index.ts";
import { ConfigError } from "../errors.ts";
import type { LevelFamily } from "../family/family.ts";
import type { FamilyModule } from "../family/registry.ts";
import { EPISODES } from "../backend/redis/queue-kinds.ts";

/**
 * The composition root's registry, the only way to a level family (docs/ARCHITECTURE.md §2): the families hexa ships (levels/index.ts) and
 * any a user adds without editing hexa, named in HEXA_FAMILIES (module paths, separated by the path delimiter
 * ':', each exporting a FamilyModule as default or `family`). Each family is built once, by `loadFamilies`, which a
 * command awaits before it reads one: a command that reads none (`--version`, `levels list` of another family)
 * never imports their modules.
 */
const modules: FamilyModule[] = [...FAMILIES];

const ENV = "HEXA_FAMILIES";

/** Loads the families HEXA_FAMILIES names; the CLI calls it once before it parses a command. */
export const loadPluginFamilies = async (env: NodeJS.ProcessEnv = process.env): Promise<void> => {
  for (const path of (env[ENV] ?? "").split(":").filter(Boolean)) {
    const file = isAbsolute(path) ? path : resolve(path);
    let loaded: Record<string, unknown>;
    try {
      loaded = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    } catch (e) {
      throw new ConfigError(`${ENV}: cannot load ${JSON.stringify(path)} (${(e as Error).message.split("\n")[0]}); name a module that exports a FamilyModule`);
    }
    const m = (loaded.default ?? loaded.family) as Partial<FamilyModule> | undefined;
    if (!m || typeof m.id !== "string" || typeof m.build !== "function" || typeof m.title !== "string") {
      throw new ConfigError(`${ENV}: ${JSON.stringify(path)} exports no FamilyModule (an object with id, title and build) as default or \`family\``);
    }
    if (modules.some((x) => x.id === m.id)) throw new ConfigError(`${ENV}: ${JSON.stringify(path)} adds family '${m.id}', which exists already; rename its id`);
    modules.push(m as FamilyModule);
  }
};

const built = new Map<string, LevelFamily>();

export const familyModules = (): readonly FamilyModule[] => modules;

export const familyIds = (): string[] => modules.map((m) => m.id);

/** The family a command or config that names none means: the registry's first (levels/index.ts). */
export const defaultFamilyId = (): string => modules[0]!.id;

const moduleOf = (id: string): FamilyModule => {
  const m = modules.find((x) => x.id === id);
  if (!m) throw new ConfigError(`unknown family '${id}'; known: ${familyIds().join(", ")}`);
  return m;
};

/** Builds these families (default: all) once; `getFamily` then returns them. */
export const loadFamilies = async (ids: readonly string[] = familyIds()): Promise<void> => {
  for (const id of ids) if (!built.has(id)) built.set(id, await moduleOf(id).build());
};

export const getFamily = (id: string): LevelFamily => {
  moduleOf(id);
  const family = built.get(id);
  if (!family) throw new Error(`family '${id}' is read before loadFamilies built it`);
  return family;
};

/** All families (for composing RunConfig with every family's slice). */
export const allFamilies = (): LevelFamily[] => familyIds().map(getFamily);

/** The queue kinds a worker may serve: episodes, and those the families add. */
export const queueKinds = (): string[] => [EPISODES, ...modules.flatMap((m) => m.worker?.queues ?? [])];

/** Stops what the families started (trainer processes); every command that played calls it before it returns. */
export const closeFamilies = async (): Promise<void> => {
  await Promise.all([...built.values()].map((f) => f.close?.()));
};

/** Whether a family was built in this process (a worker must route its jobs before). */
export const anyFamilyBuilt = (): boolean => built.size > 0;
