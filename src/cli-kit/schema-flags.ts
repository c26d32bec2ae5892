import type { Options } from "yargs";
import { z } from "zod";
import { ConfigError, InvariantError } from "../errors.ts";
import { unwrapSchema } from "../util/zod-unwrap.ts";

/**
 * Command-line flags derived from a config schema (docs/spec/style.md §8: the schema is the one source of
 * names, types, descriptions, choices and defaults). Each leaf becomes `--kebab-name`; a leaf under a section
 * gets the section's name in front of its description ("rf-agent: first designs…"). Leaf names must be unique
 * across sections: the flags are flat. No flag has a yargs default: an absent flag leaves the field to the
 * schema's own default.
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

export interface SchemaFlagOptions {
  /** Appended to each description, e.g. " (family interphyre)". */
  suffix?: string;
  /** Only the top level's numbers, strings, booleans and enums: sections and other fields get no flag (default: all, refusing a field with no flag form). */
  plainOnly?: boolean;
  /** Each description ends with "(default …)" when the field has one (default true). */
  showDefaults?: boolean;
}

const kebab = (s: string): string => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

const leafType = (s: z.ZodType): Pick<SchemaFlag, "type" | "choices"> | undefined => {
  if (s instanceof z.ZodNumber) return { type: "number" };
  if (s instanceof z.ZodBoolean) return { type: "boolean" };
  if (s instanceof z.ZodString) return { type: "string" };
  if (s instanceof z.ZodEnum) return { type: "string", choices: s.options.map(String) };
  return undefined;
};

const flagsAt = (schema: z.ZodObject, o: SchemaFlagOptions, at: readonly string[]): SchemaFlag[] =>
  Object.entries(schema.shape as Record<string, z.ZodType>).flatMap(([key, field]): SchemaFlag[] => {
    const { schema: inner, description, fallback } = unwrapSchema(field);
    const name = kebab(key);
    if (inner instanceof z.ZodObject && !o.plainOnly) return flagsAt(inner, o, [...at, key]).map((f) => ({ ...f, describe: `${name}: ${f.describe}` }));
    const type = leafType(inner);
    if (!type) {
      if (o.plainOnly) return [];
      throw new InvariantError(`schemaFlags: --${name} is a ${inner._zod.def.type}, which has no flag form; give it a number, boolean, string or enum schema`);
    }
    const text = description ?? key;
    const withDefault = fallback === undefined || o.showDefaults === false ? text : `${text} (default ${String(fallback)})`;
    return [{ name, path: [...at, key], ...type, describe: `${withDefault}${o.suffix ?? ""}` }];
  });

export const schemaFlags = (schema: z.ZodObject, o: SchemaFlagOptions = {}): SchemaFlag[] => {
  const flags = flagsAt(schema, o, []);
  const dup = flags.find((f, i) => flags.findIndex((g) => g.name === f.name) !== i);
  if (dup) throw new InvariantError(`schemaFlags: two fields make --${dup.name}; rename one of them`);
  return flags;
};

/** The yargs options of the flags, by name (an enum's flag offers its choices). */
export const flagOptions = (flags: readonly SchemaFlag[]): Record<string, Options> =>
  Object.fromEntries(flags.map((f) => [f.name, f.choices ? { describe: f.describe, choices: [...f.choices] } : { type: f.type, describe: f.describe }]));

/** The top-level slice the flags given make: each passed flag's field (for `plainOnly` flags). */
export const sliceFromFlags = (flags: readonly SchemaFlag[], argv: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(flags.filter((f) => argv[f.name] !== undefined).map((f) => [f.path.at(-1)!, argv[f.name]]));

/**
 * The config object of the flags given (absent flags stay absent, so the schema's defaults apply), parsed by
 * the schema; an error names the flag and points to `help`, the command whose flags they are.
 */
export const configFromFlags = <S extends z.ZodObject>(
  schema: S,
  flags: readonly SchemaFlag[],
  argv: Record<string, unknown>,
  help: string,
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
