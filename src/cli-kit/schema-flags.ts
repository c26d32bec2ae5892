import type { Options } from "yargs";
import type { z } from "zod";

/** One command-line flag made from a config field: the flag's name, the field it fills, and its yargs option. */
export interface SchemaFlag {
  flag: string;
  field: string;
  option: Options;
}

const kebab = (s: string): string => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

type Def = { type: string; innerType?: z.ZodType; entries?: Record<string, string> };
const defOf = (s: z.ZodType): Def => (s as unknown as { def: Def }).def;

/** The field's value schema under its default/optional/prefault wrappers, and its description (on any layer). */
const unwrap = (s: z.ZodType): { core: z.ZodType; describe: string | undefined } => {
  let core = s;
  let describe = s.description;
  while (["default", "optional", "prefault", "nullable"].includes(defOf(core).type) && defOf(core).innerType) {
    core = defOf(core).innerType!;
    describe ??= core.description;
  }
  return { core, describe };
};

/**
 * Flags for the plain fields (numbers, strings, booleans, enums) of a config slice, each named after its field
 * (`toolSet` → `--tool-set`), typed and described by the schema, so the command line never restates a knob.
 * No flag has a default: an absent flag leaves the field to the schema's own default.
 */
export const schemaFlags = (schema: z.ZodObject, suffix = ""): SchemaFlag[] =>
  Object.entries(schema.shape).flatMap(([field, s]): SchemaFlag[] => {
    const { core, describe } = unwrap(s as z.ZodType);
    const d = defOf(core);
    const base = { describe: `${describe ?? field}${suffix}` };
    const flag = kebab(field);
    switch (d.type) {
      case "number":
        return [{ flag, field, option: { ...base, type: "number" } }];
      case "string":
        return [{ flag, field, option: { ...base, type: "string" } }];
      case "boolean":
        return [{ flag, field, option: { ...base, type: "boolean" } }];
      case "enum":
        return [{ flag, field, option: { ...base, choices: Object.values(d.entries ?? {}) } }];
      default:
        return [];
    }
  });

/** The slice a command's flags give: the fields whose flag was passed. */
export const sliceFromFlags = (flags: readonly SchemaFlag[], argv: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(flags.filter((f) => argv[f.flag] !== undefined).map((f) => [f.field, argv[f.flag]]));
