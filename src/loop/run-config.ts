import { z } from "zod";
import { Document, isMap, isScalar, type Pair } from "yaml";
import { ActorConfig } from "../../agents/actor-config.ts";
import { RetrieverConfig } from "../../agents/retriever.ts";
import { ConfigError } from "../errors.ts";
import { Budget } from "../llm/budget.ts";
import { LlmConfig } from "../llm/config.ts";
import { SearchConfig } from "../search/config.ts";
import { METHODS, RUN_AGENTS } from "./run-choices.ts";
import { EmbeddingConfig } from "../store/embedding.ts";
import { secret, withoutSecrets } from "../util/secret-fields.ts";
import { valueAt } from "../util/value-at.ts";
import { objectSchemaFor, unwrapSchema } from "../util/zod-unwrap.ts";
import { closestName } from "../util/closest-name.ts";
import { parseYamlText } from "../util/yaml-file.ts";
import { DEFAULT_SKILL_INDEX_DIR } from "../store/skill-index-dir.ts";

/**
 * A run's config (docs/spec/style.md §8): each part owns its slice (ActorConfig, RetrieverConfig, LlmConfig,
 * EmbeddingConfig) and this file composes them. Unknown keys are errors, so a typo never silently runs the
 * default; every default is visible in `hexa run --print-config`.
 */

const INITS = ["offline", "off2on", "online"] as const;
const UPDATES = ["evolving", "replacement", "static"] as const;
export type RunAgent = (typeof RUN_AGENTS)[number];

const strict = <T extends z.ZodRawShape>(shape: T) => z.strictObject(shape);

const SeedsConfig = strict({
  offset: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe("the stream takes each level's certified seeds from this index on, in order; the same offset pairs methods"),
});

const OfflineConfig = strict({
  episodes: z.number().int().min(1).default(5).describe("offline trajectories per level for the Offline / Off2On initialisation (docs/spec/method.md §5)"),
  trajectories: z
    .array(z.string())
    .optional()
    .describe("JSONL files of earlier trajectories (e.g. skills/offline/<level>.heuristic.jsonl), distilled instead of playing offline episodes"),
  banks: z
    .array(z.string())
    .optional()
    .describe("shipped bank files (e.g. skills/banks/<level>.heuristic.json), one per level: the round-0 bank instead of a distillation"),
});

const BankConfig = strict({
  maxSkills: z.number().int().min(1).default(10).describe("M_max: skills kept per level, enforced after every update"),
  maxMistakes: z.number().int().min(1).default(5).describe("N_max: mistakes kept per level, enforced after every update"),
  rewardLabels: z.boolean().default(true).describe("false: the no-reward-labels ablation (trajectories unsorted, skills unweighted)"),
});

export const SkillIndexConfig = strict({
  enabled: z.boolean().default(false).describe("index every level's bank in Chroma after each round (CHROMA_URL, else an embedded server)"),
  dataDir: z.string().default(DEFAULT_SKILL_INDEX_DIR).describe("the embedded Chroma server's data directory"),
  embedding: EmbeddingConfig.default({ provider: "local", dims: 384 }).describe("how entries are embedded"),
});

export const RunConfig = strict({
  name: z
    .string()
    .regex(/^[a-z0-9_+.-]+$/i, "letters, digits, _ + . - only")
    .max(100, "at most 100 characters (it starts the run directory's name)")
    .optional()
    .describe("run id prefix; the level names when absent"),
  family: z.string().min(1).describe("the level family that supplies tasks and tools (hexa levels list shows them)"),
  levels: z.array(z.string().min(1)).min(1).describe("levels to learn on; each keeps its own bank"),
  seeds: SeedsConfig.prefault({}),
  rounds: z.number().int().min(1).default(17).describe("R: rounds per level"),
  episodesPerRound: z.number().int().min(1).default(3).describe("x: episodes (seeds) per round per level"),
  agent: z
    .enum(RUN_AGENTS)
    .default("hexa")
    .describe("hexa: the actor with the retrieved bank; react/direct/reflexion: baselines without a bank; heuristic: no LLM"),
  evolver: z.enum(["llm", "heuristic"]).default("llm").describe("who updates the bank: the evolver model, or the heuristic region evolver (no LLM)"),
  init: z.enum(INITS).default("off2on").describe("bank initialisation (docs/spec/method.md §5)"),
  update: z.enum(UPDATES).default("evolving").describe("bank update between rounds (docs/spec/method.md §5); static: frozen after the first distillation"),
  method: z
    .enum(METHODS)
    .default("rounds")
    .describe(
      "rounds: the round loop with the evolving bank; eureka: K × I greedy evolution per level; rf-agent: RF-Agent's tree search per level (each on the level's first stream seed; only in a family that has a whole search)",
    ),
  search: SearchConfig.prefault({}).describe("the search methods' knobs and candidate budget (the rounds read only budget)"),
  offline: OfflineConfig.prefault({}),
  bank: BankConfig.prefault({}),
  retriever: RetrieverConfig.prefault({}),
  actor: ActorConfig.prefault({}),
  llm: LlmConfig.prefault({}),
  budget: Budget,
  skillIndex: SkillIndexConfig.prefault({}),
  concurrency: z.number().int().min(1).default(3).describe("episodes of one round run at once"),
  backend: secret(z.string().min(1), "url-password")
    .default("local")
    .describe(
      "where episodes are played: local (this process, `concurrency` at once) or a job queue URL for hexa worker processes, e.g. redis://127.0.0.1:6379; hexa run --backend overrides it",
    ),
  seed: z
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(0)
    .describe("seed for the agents' own random draws (scenes come from the level seeds; 0 reproduces the benchmarks; LLM sampling is the endpoint's)"),
});
export type RunConfig = z.infer<typeof RunConfig>;

/** Agents that learn through a bank; the baselines run every seed without one (docs/spec/method.md §7). */
export const usesBank = (c: Pick<RunConfig, "agent">): boolean => c.agent === "hexa" || c.agent === "heuristic";

/** "offline" freezes the bank after distilling it, so only "static" fits it (docs/spec/method.md §5). */
const cellProblem = (c: RunConfig): string | undefined => {
  if (c.init === "offline" && c.update !== "static")
    return `update: offline initialisation freezes the bank (got update ${c.update}); use update: static, or init: off2on to keep learning`;
  if (!c.bank.rewardLabels && c.evolver === "heuristic")
    return "bank.rewardLabels: false is an ablation of the LLM evolver's prompt (got evolver: heuristic, which always weighs regions by reward); use evolver: llm";
  if (c.offline.banks && c.offline.trajectories)
    return "offline: give banks or trajectories, not both (a shipped bank replaces the distillation of trajectories)";
  if (c.init === "online" && (c.offline.banks || c.offline.trajectories))
    return `offline: init online starts with no bank (got offline.${c.offline.banks ? "banks" : "trajectories"}); use init: off2on or offline to start from them`;
  return undefined;
};

/** A value as the user wrote it: YAML's .inf and .nan are numbers JSON would print as null; long text is cut. */
export const shownValue = (v: unknown): string => {
  const text =
    JSON.stringify(v, (_k, x: unknown) => (typeof x === "number" && !Number.isFinite(x) ? `<${String(x)}>` : typeof x === "bigint" ? `<${String(x)}n>` : x)) ??
    String(v);
  const plain = text.replace(/"<(-?Infinity|NaN|-?\d+n)>"/g, "$1");
  return plain.length > 120 ? `${plain.slice(0, 100)}… (${plain.length} characters)` : plain;
};

/** The keys the schema knows for the mapping at `path` of `raw` ([] where it is not a mapping). */
const knownKeysAt = (schema: z.ZodType, raw: unknown, path: readonly PropertyKey[]): string[] => {
  let at: z.ZodType | undefined = schema;
  for (let i = 0; at && i < path.length; i++) at = objectSchemaFor(at, valueAt(raw, path.slice(0, i)))?.shape[String(path[i])] as z.ZodType | undefined;
  const shape = at ? objectSchemaFor(at, valueAt(raw, path))?.shape : undefined;
  return shape ? Object.keys(shape) : [];
};

/** An unknown key, with the known one it most likely meant. */
const unknownKeyText = (issue: z.core.$ZodIssue & { code: "unrecognized_keys" }, raw: unknown, schema: z.ZodType): string => {
  const where = issue.path.join(".");
  const known = knownKeysAt(schema, raw, issue.path);
  const full = (k: string) => (issue.path.length ? `${where}.${k}` : k);
  const meant = issue.keys.flatMap((k) => {
    const m = closestName(k, known);
    return m ? [issue.keys.length === 1 ? full(m) : `${full(m)} for ${full(k)}`] : [];
  });
  const hint = meant.length ? ` (did you mean ${meant.join(", ")}?)` : "";
  return `${issue.keys.map(full).join(", ")}: unknown key; see hexa run --print-config for the known ones${hint}`;
};

/** `clean` is `raw` with its secrets removed: a secret's value never reaches a message, only that one was given. */
const issueText = (issue: z.core.$ZodIssue, raw: unknown, clean: unknown, schema: z.ZodType): string => {
  const where = issue.path.join(".") || "(config)";
  if (issue.code === "unrecognized_keys") return unknownKeyText(issue, raw, schema);
  const got = valueAt(clean, issue.path);
  const hidden = got === undefined && valueAt(raw, issue.path) !== undefined;
  const shown = hidden ? "a secret, not shown" : got === undefined ? "nothing" : shownValue(got);
  return `${where}: ${issue.message.replace(/^Invalid input: /, "")} (got ${shown}); see hexa run --print-config for its default and meaning`;
};

/** What RunConfig needs of each level family: its id and its config slice (docs/ARCHITECTURE.md §3). */
export interface FamilySlice {
  id: string;
  /** `upgrade` moves keys an older hexa wrote in the family's slice to where they live now (throws a ConfigError on a conflict). */
  config: { key: string; schema: z.ZodObject; upgrade?: (raw: Record<string, unknown>) => Record<string, unknown> };
}

/** RunConfig with every known family's slice under its key, and `family` limited to the known ids. */
export const composeRunConfig = (families: readonly FamilySlice[]): z.ZodType<RunConfig> => {
  if (families.length === 0) return RunConfig;
  const ids = families.map((f) => f.id) as [string, ...string[]];
  const slices = Object.fromEntries(families.map((f) => [f.config.key, f.config.schema.prefault({}).describe(`settings of the ${f.id} family`)]));
  return RunConfig.extend({
    family: z
      .enum(ids)
      .default(ids[0])
      .describe(`the level family that supplies tasks and tools: ${ids.join(", ")}`),
    ...slices,
  }) as unknown as z.ZodType<RunConfig>;
};

/** Each family's `upgrade` of the keys an older hexa wrote (a config that is not a mapping is left to the schema). */
const upgrade = (raw: unknown, source: string, families: readonly FamilySlice[]): unknown => {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return raw;
  try {
    return families.reduce((r, f) => f.config.upgrade?.(r) ?? r, raw as Record<string, unknown>);
  } catch (e) {
    throw e instanceof ConfigError ? new ConfigError(`${source}: ${e.message}`) : e;
  }
};

/** Parses a config object; `source` names the file in errors; `families` supply their slices. */
export const parseRunConfig = (raw: unknown, source: string, families: readonly FamilySlice[] = []): RunConfig => {
  const read = upgrade(raw ?? {}, source, families);
  const schema = composeRunConfig(families);
  const parsed = schema.safeParse(read);
  if (!parsed.success) {
    const clean = withoutSecrets(read, schema);
    throw new ConfigError(
      `${source}: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => issueText(i, read, clean, schema))
        .join("; ")}`,
    );
  }
  const problem = cellProblem(parsed.data);
  if (problem) throw new ConfigError(`${source}: ${problem}`);
  const other = families.find((f) => f.id !== parsed.data.family && (raw as Record<string, unknown> | null)?.[f.config.key] !== undefined);
  if (other)
    throw new ConfigError(
      `${source}: ${other.config.key}: settings of the ${other.id} family in a ${parsed.data.family} run; drop them or set family: ${other.id}`,
    );
  // Only the run's own family slice is kept (and written to config.yaml).
  const mine = new Set(families.filter((f) => f.id === parsed.data.family).map((f) => f.config.key));
  const data = { ...parsed.data } as Record<string, unknown>;
  for (const f of families) if (!mine.has(f.config.key)) delete data[f.config.key];
  return data as RunConfig;
};

export const parseRunConfigYaml = (text: string, source: string, families: readonly FamilySlice[] = []): RunConfig =>
  parseRunConfig(parseYamlText(text, source), source, families);

/** Puts each field's `.describe()` text above its key, so the printed config documents itself. */
const annotate = (node: unknown, schema: z.ZodType): void => {
  const inner = isMap(node) ? objectSchemaFor(schema, node.toJSON()) : undefined;
  if (!isMap(node) || !inner) return;
  for (const pair of node.items as Pair[]) {
    if (!isScalar(pair.key)) continue;
    const field = (inner.shape as Record<string, z.ZodType>)[String(pair.key.value)];
    if (!field) continue;
    const text = unwrapSchema(field).description;
    if (text) pair.key.commentBefore = ` ${text}`;
    annotate(pair.value, field);
  }
};

/** A resolved config as data for another process or file: every secret field removed (secret-fields.ts). */
export const configWithoutSecrets = (c: RunConfig, families: readonly FamilySlice[] = []): Record<string, unknown> =>
  withoutSecrets(JSON.parse(JSON.stringify(c)) as Record<string, unknown>, composeRunConfig(families));

/** The resolved config as commented YAML, secrets removed (they come from the environment on resume). */
export const runConfigYaml = (c: RunConfig, families: readonly FamilySlice[] = []): string => {
  const schema = composeRunConfig(families);
  const doc = new Document(withoutSecrets(structuredClone(c), schema));
  annotate(doc.contents, schema);
  return doc.toString({ lineWidth: 0 });
};
