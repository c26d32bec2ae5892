import { z } from "zod";
import { ConfigError } from "../errors.ts";
import type { LevelFamily } from "./family.ts";
import type { FamilyModule } from "./registry.ts";
import type { RunConfig } from "../loop/run-config.ts";

/**
 * The conformance check of a level family against the seam (docs/ARCHITECTURE.md §3): its core works on every
 * level, and each capability it declares has all its parts. Each problem names the member, e.g.
 * `words.task: empty` or `heuristics.evolve: not a function`.
 */

const isFunction = (v: unknown): boolean => typeof v === "function";
const isSchema = (v: unknown): boolean => v instanceof z.ZodType;
const nonEmpty = (v: unknown): boolean => typeof v === "string" && v.trim() !== "";

/** `member: problem` for each of `parts` (required) and `optional` parts of `capability` that is not a function. */
const partsOf = (member: string, capability: object, parts: readonly string[], optional: readonly string[] = []): string[] => {
  const has = capability as Record<string, unknown>;
  return [
    ...parts.filter((p) => !isFunction(has[p])).map((p) => `${member}.${p}: ${has[p] === undefined ? "missing" : "not a function"}`),
    ...optional.filter((p) => has[p] !== undefined && !isFunction(has[p])).map((p) => `${member}.${p}: not a function`),
  ];
};

/** What throwing `f` said, or undefined when it did not throw. */
const thrown = (f: () => unknown): string | undefined => {
  try {
    f();
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
};

const WORDS = ["task", "solvesBy", "numbers", "mechanisms", "partialExamples", "names", "cause", "verifyBy", "seedsDiffer"] as const;

const wordsProblems = (family: LevelFamily): string[] => {
  const w = family.words;
  if (!w) return ["words: missing"];
  return [
    ...WORDS.filter((k) => !nonEmpty(w[k])).map((k) => `words.${k}: empty`),
    ...(["kind", "example"] as const).filter((k) => !nonEmpty(w.primitive?.[k])).map((k) => `words.primitive.${k}: empty`),
    ...partsOf("words", w, ["renderAction", "sceneOf", "evidenceOf"]),
  ];
};

/** Every level resolves, has a description, and seeds that are distinct non-negative integers (the schedule cuts disjoint sets from them). */
const levelProblems = (family: LevelFamily, level: string): string[] => {
  const refused = thrown(() => family.checkLevel(level));
  if (refused) return [`checkLevel('${level}'): refused a listed level (${refused})`];
  const seeds = family.seedsOf(level);
  const bad = seeds.find((s) => !Number.isSafeInteger(s) || s < 0);
  return [
    ...(nonEmpty(family.describe(level)) ? [] : [`describe('${level}'): empty`]),
    ...(seeds.length === 0 ? [`seedsOf('${level}'): no seeds`] : []),
    ...(bad === undefined ? [] : [`seedsOf('${level}'): ${bad} is not a non-negative integer`]),
    ...(new Set(seeds).size === seeds.length ? [] : [`seedsOf('${level}'): repeats a seed, so the stream, offline and held-out sets would overlap`]),
  ];
};

const coreProblems = (family: LevelFamily): string[] => {
  const levels = family.listLevels();
  const unknown = "no-such-level-of-checkFamily";
  return [
    ...(nonEmpty(family.id) ? [] : ["id: empty"]),
    ...(nonEmpty(family.title) ? [] : ["title: empty"]),
    ...(levels.length === 0 ? ["listLevels: no levels"] : []),
    ...(new Set(levels).size === levels.length ? [] : ["listLevels: repeats a level"]),
    ...levels.flatMap((level) => levelProblems(family, level)),
    ...(thrown(() => family.checkLevel(unknown)) ? [] : [`checkLevel('${unknown}'): accepted a level that is not listed`]),
    ...(isSchema(family.action) ? [] : ["action: not a zod schema"]),
    ...(nonEmpty(family.config?.key) ? [] : ["config.key: empty"]),
    ...(isSchema(family.config?.schema) && family.config.schema.safeParse({}).success
      ? []
      : ["config.schema: an empty slice does not parse (every field needs a default)"]),
    ...wordsProblems(family),
  ];
};

/** The env of the first level's first seed: a prompt, tools with distinct names whose JSON schemas read back as zod schemas of objects. */
const envProblems = async (family: LevelFamily, config: RunConfig): Promise<string[]> => {
  const level = family.listLevels()[0];
  const seed = level === undefined ? undefined : family.seedsOf(level)[0];
  if (level === undefined || seed === undefined) return [];
  const env = await family.openEnv({ level, seed }, config, config.actor.maxTurns);
  try {
    const where = `openEnv('${level}', ${seed})`;
    const names = env.tools.map((t) => t.name);
    return [
      ...(env.tools.length === 0 ? [`${where}.tools: none`] : []),
      ...(new Set(names).size === names.length ? [] : [`${where}.tools: repeats a name (${names.join(", ")})`]),
      ...env.tools.flatMap((t) => {
        const why = thrown(() => z.fromJSONSchema(t.parameters as Parameters<typeof z.fromJSONSchema>[0]));
        return why
          ? [`${where}.tools.${t.name}.parameters: ${why}`]
          : t.parameters?.type === "object"
            ? []
            : [`${where}.tools.${t.name}.parameters: not an object schema`];
      }),
      ...(nonEmpty(env.prompt?.role) ? [] : [`${where}.prompt.role: empty`]),
      ...(nonEmpty(env.prompt?.task) ? [] : [`${where}.prompt.task: empty`]),
    ];
  } finally {
    await env.close();
  }
};

const capabilityProblems = (family: LevelFamily): string[] => {
  const payload = family.heuristics?.payload;
  return [
    ...(family.heuristics ? partsOf("heuristics", family.heuristics, ["play", "evolve"], ["synthesise"]) : []),
    ...(payload !== undefined && !isSchema(payload) ? ["heuristics.payload: not a zod schema"] : []),
    ...(family.search ? partsOf("search", family.search, ["searchFor"], ["allowanceOf", "finalScores", "finalScoresDue"]) : []),
    ...(family.checks ? partsOf("checks", family.checks, [], ["trajectoryProblem", "objectsOf", "checkConfig", "checkStart"]) : []),
    ...(family.records ? partsOf("records", family.records, ["openRun", "recordingEpisode", "keepFromWorker"]) : []),
    ...partsOf("family", family, [], ["drawer", "close"]),
  ];
};

/** A module's own parts, and its family's id and title the same as the module's. */
const moduleProblems = (module: FamilyModule, family: LevelFamily): string[] => [
  ...(module.id === family.id ? [] : [`id: the module's '${module.id}' is not its family's '${family.id}'`]),
  ...(module.title === family.title ? [] : ["title: the module's is not its family's"]),
  ...partsOf("module", module, ["build", "listing"]),
  ...(module.replay ? partsOf("replay", module.replay, ["run", "recordedFiles"], ["search", "judgment"]) : []),
  ...(module.worker ? partsOf("worker", module.worker, ["serve"]) : []),
  ...(module.worker && module.worker.queues.length === 0 ? ["worker.queues: none"] : []),
];

/**
 * Checks a family (and, when given, the module that registers it) against the seam: the core on every level, an
 * env of its first task opened under `config` (a run config the family's slice defaults in), and the parts of
 * each capability it declares. Throws a ConfigError naming the family and every member that fails.
 */
export const checkFamily = async (family: LevelFamily, o: { config: RunConfig; module?: FamilyModule }): Promise<void> => {
  const problems = [...coreProblems(family), ...capabilityProblems(family), ...(o.module ? moduleProblems(o.module, family) : [])];
  if (problems.length === 0) problems.push(...(await envProblems(family, o.config)));
  if (problems.length > 0) throw new ConfigError(`family ${family.id || "(no id)"} does not conform to the seam: ${problems.join("; ")}`);
};
