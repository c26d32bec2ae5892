import { z } from "zod";
import { ConfigError, InvariantError } from "../errors.ts";
import { SearchConfig } from "./config.ts";

/**
 * Command-line flags derived from a config schema (style.md §8: the schema is the one source of names,
 * types, descriptions, choices and defaults). Each leaf of the object becomes `--kebab-name`; a leaf under a
 * section gets the section's name in front of its description ("rf-agent: first designs…"). Leaf names must
 * be unique across sections: the flags are flat.
 */

export interface SchemaFlag {
  /** The flag's name, without dashes. */
  name: string;
  /** Where its value goes in the config object. */
  path: readonly string[];
  type: "number" | "string" | "boolean";
  describe: string;
  choices?: readonly string[];
}

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

const unwrap = (s: z.ZodType): { inner: z.ZodType; fallback?: unknown } => {
  const def = s._zod.def as { type: string; innerType?: z.ZodType; defaultValue?: unknown };
  if (!def.innerType || !["default", "prefault", "optional", "nullable"].includes(def.type)) return { inner: s };
  const below = unwrap(def.innerType);
  return def.type === "default" ? { ...below, fallback: def.defaultValue } : below;
};

const leafType = (s: z.ZodType, name: string): Pick<SchemaFlag, "type" | "choices"> => {
  if (s instanceof z.ZodNumber) return { type: "number" };
  if (s instanceof z.ZodBoolean) return { type: "boolean" };
  if (s instanceof z.ZodString) return { type: "string" };
  if (s instanceof z.ZodEnum) return { type: "string", choices: s.options.map(String) };
  throw new InvariantError(`schemaFlags: --${name} is a ${s._zod.def.type}, which has no flag form; give it a number, boolean, string or enum schema`);
};

export const schemaFlags = (schema: z.ZodObject, at: readonly string[] = []): SchemaFlag[] => {
  const flags = Object.entries(schema.shape as Record<string, z.ZodType>).flatMap(([key, field]): SchemaFlag[] => {
    const { inner, fallback } = unwrap(field);
    const text = field.description ?? inner.description ?? "";
    if (inner instanceof z.ZodObject) return schemaFlags(inner, [...at, key]).map((f) => ({ ...f, describe: `${kebab(key)}: ${f.describe}` }));
    const name = kebab(key);
    return [{ name, path: [...at, key], ...leafType(inner, name), describe: fallback === undefined ? text : `${text} (default ${String(fallback)})` }];
  });
  const dup = flags.find((f, i) => flags.findIndex((g) => g.name === f.name) !== i);
  if (dup) throw new InvariantError(`schemaFlags: two fields make --${dup.name}; rename one of them`);
  return flags;
};

/** The search slice's flags: --budget, --samples, --iterations, --initial, --children, --lambda-start, … */
export const searchFlags = (): SchemaFlag[] => schemaFlags(SearchConfig);

/**
 * The config object of the flags given (absent flags stay absent, so the schema's defaults apply), parsed by
 * the schema; an error names the flag and points to `help`, the command whose flags they are.
 */
export const configFromFlags = <S extends z.ZodObject>(
  schema: S,
  flags: readonly SchemaFlag[],
  argv: Record<string, unknown>,
  help = "hexa search --help",
): { config: z.infer<S>; given: Record<string, unknown> } => {
  const raw: Record<string, unknown> = {};
  const given: Record<string, unknown> = {};
  for (const f of flags) {
    const v = argv[f.name];
    if (v === undefined) continue;
    given[f.path.at(-1)!] = v;
    let at = raw;
    for (const k of f.path.slice(0, -1)) at = (at[k] ??= {}) as Record<string, unknown>;
    at[f.path.at(-1)!] = v;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const flag = flags.find((f) => f.path.join(".") === issue.path.join("."));
    const where = flag ? `--${flag.name}` : issue.path.join(".") || "flags";
    const got = flag ? argv[flag.name] : undefined;
    throw new ConfigError(`${where}: ${issue.message.replace(/^Invalid input: /, "")} (got ${JSON.stringify(got) ?? "nothing"}); see ${help}`);
  }
  return { config: parsed.data, given };
};
