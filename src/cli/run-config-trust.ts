import type { z } from "zod";
import type { LevelFamily } from "../family/family.ts";
import { composeRunConfig, parseRunConfig, type RunConfig, shownValue } from "../loop/run-config.ts";
import { terminalLine } from "../util/terminal-text.ts";
import { changedKeys } from "../app/run-setup.ts";

/**
 * What a reader takes from a run's config.yaml when the run is not theirs (docs/security.md, "A stranger's run or
 * bundle"). A field that shapes the records is a number, a yes/no, a choice among fixed names (an enum), or one
 * of the few texts below; any other text — a base URL, a trainer command, a cache, log, index or offline path, a
 * backend URL — names a host, a process or a file outside the run, and is the reader's to choose, never the run's.
 * The rule is by kind, not by a list of dangerous fields, so a field added later is withheld until it is listed here.
 */
const TEXT_TAKEN = new Set(["name", "family", "levels.*", "llm.actor.model", "llm.evolver.model", "llm.synthesiser.model", "llm.judge.model"]);

/** Free-form data that shapes the records and names nothing: fields added to a model request (answered from the record on a replay). */
const DATA_TAKEN = new Set(["llm.actor.extraBody", "llm.evolver.extraBody", "llm.synthesiser.extraBody", "llm.judge.extraBody"]);

type Def = {
  type: string;
  innerType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
};
const defOf = (s: z.ZodType): Def => s._zod.def as unknown as Def;
const bare = (s: z.ZodType): Def => {
  let at = s;
  while (defOf(at).innerType) at = defOf(at).innerType!;
  return defOf(at);
};
const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Kinds whose every value is a number, a yes/no or one of the schema's own names. */
const NAMING_NOTHING = new Set(["number", "int", "boolean", "null", "enum", "literal", "nan"]);

/** The shape of an object schema, or the union of its options' shapes (a discriminated union's fields). */
const shapeOf = (d: Def): Record<string, z.ZodType> | undefined => {
  if (d.type === "object") return d.shape;
  if (d.type !== "union") return undefined;
  return Object.assign({}, ...(d.options ?? []).map((o) => shapeOf(bare(o)) ?? {})) as Record<string, z.ZodType>;
};

const WITHHELD = Symbol("withheld");

/** `value` with every field that may name something outside removed (WITHHELD when the value itself is one). */
const taken = (value: unknown, schema: z.ZodType, path: string): unknown => {
  const d = bare(schema);
  if (DATA_TAKEN.has(path)) return structuredClone(value);
  if (NAMING_NOTHING.has(d.type)) return value;
  // A choice among values that each name nothing (e.g. `gpu: auto | false`) names nothing either.
  if (d.type === "union" && d.options?.every((o) => NAMING_NOTHING.has(bare(o).type))) return value;
  // An object of one of several shapes (a role's endpoint or embedded model): read as the shape it has, kept
  // when what is left of it still fits that shape, else all of it goes.
  const shaped = d.type === "union" ? d.options?.find((o) => bare(o).type === "object" && o.safeParse(value).success) : undefined;
  if (shaped) {
    const kept = taken(value, shaped, path);
    return kept !== WITHHELD && shaped.safeParse(kept).success ? kept : WITHHELD;
  }
  if (d.type === "string") return TEXT_TAKEN.has(path) ? value : WITHHELD;
  if (d.type === "array" && Array.isArray(value) && d.element) {
    const items = value.map((v) => taken(v, d.element!, `${path}.*`));
    return items.includes(WITHHELD) ? WITHHELD : items;
  }
  if (d.type === "record" && isMap(value) && d.valueType) {
    const entries = Object.entries(value).map(([k, v]) => [k, taken(v, d.valueType!, `${path}.*`)] as const);
    return entries.some(([, v]) => v === WITHHELD) ? WITHHELD : Object.fromEntries(entries);
  }
  const shape = shapeOf(d);
  if (!shape || !isMap(value)) return WITHHELD;
  const entries = Object.entries(value).flatMap(([k, v]) => {
    const field = Object.hasOwn(shape, k) ? shape[k] : undefined;
    const kept = field ? taken(v, field, path ? `${path}.${k}` : k) : WITHHELD;
    return kept === WITHHELD ? [] : [[k, kept] as const];
  });
  // A union's value is one of several shapes: with a field of it withheld, the rest may fit none, so all of it goes.
  if (d.type === "union" && entries.length < Object.keys(value).length) return WITHHELD;
  return Object.fromEntries(entries);
};

/** A run's config split: what shapes its records, and the dotted keys withheld because they may name a host, a process or a path. */
export interface TrustedPart {
  /** The config's data less the withheld fields (defaults not yet filled in). */
  data: Record<string, unknown>;
  /** Keys whose value in the run's config differs from what the reader uses instead (their defaults), sorted. */
  withheld: string[];
}

/** The part of a run's config a reader may take without trusting the run (see TEXT_TAKEN above). */
export const trustedPart = (cfg: RunConfig, families: readonly LevelFamily[]): TrustedPart => {
  const data = taken(JSON.parse(JSON.stringify(cfg)), composeRunConfig(families), "");
  const kept = (data === WITHHELD ? {} : data) as Record<string, unknown>;
  const refilled = parseRunConfig(structuredClone(kept), "(the run's config less its endpoints, commands and paths)", families);
  return { data: kept, withheld: changedKeys(JSON.parse(JSON.stringify(cfg)), JSON.parse(JSON.stringify(refilled))) };
};

/**
 * An embedded role (`provider: llama-cpp`) names a file that would be loaded: a reader loads no file a run names,
 * so such a role takes the reader's default. (A replay keeps it: it opens no model, and keys requests by the name.)
 */
const withoutModelFiles = (data: Record<string, unknown>): Record<string, unknown> => {
  if (!isMap(data.llm)) return data;
  return { ...data, llm: Object.fromEntries(Object.entries(data.llm).filter(([, v]) => !(isMap(v) && v.provider === "llama-cpp"))) };
};

/** The config as the reader uses it without confirming: every withheld field at its default (the reader's environment then fills in endpoints). */
export const withoutRunChoices = (cfg: RunConfig, where: string, families: readonly LevelFamily[]): { config: RunConfig; withheld: string[] } => {
  const config = parseRunConfig(withoutModelFiles(trustedPart(cfg, families).data), where, families);
  return { config, withheld: changedKeys(JSON.parse(JSON.stringify(cfg)), JSON.parse(JSON.stringify(config))) };
};

/** The value of a dotted key, for a message: as config errors show a value, with no control character left for a terminal. */
const shownField = (cfg: unknown, key: string): string => {
  const v = key.split(".").reduce<unknown>((at, k) => (isMap(at) ? at[k] : undefined), cfg);
  return v === undefined ? "nothing" : terminalLine(shownValue(v));
};

/** The withheld keys with the run's values, for a note or a refusal. */
export const withheldText = (cfg: RunConfig, withheld: readonly string[]): string => withheld.map((k) => `${k} = ${shownField(cfg, k)}`).join(", ");

/**
 * The config a command that reads a run directory it may not have made (hexa eval, hexa bank reindex) works with
 * (docs/security.md): with `trust` (the reader's `--trust-run-config`), the run's as it is; otherwise without the
 * endpoints, commands and paths it names, which then come from the reader's environment and defaults, and `note`
 * says which were held back.
 */
export const readerConfig = (
  cfg: RunConfig,
  o: { trust: boolean; where: string; note: (line: string) => void; families: readonly LevelFamily[] },
): RunConfig => {
  if (o.trust) return cfg;
  const { config, withheld } = withoutRunChoices(cfg, o.where, o.families);
  if (withheld.length)
    o.note(
      `note: not taken from ${o.where} (a run's files choose no endpoint, command or path for you; yours are used: environment, defaults; pass --trust-run-config to use the run's): ${withheldText(cfg, withheld)}`,
    );
  return config;
};
