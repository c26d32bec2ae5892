import { z } from "zod";
import { valueAt } from "./value-at.ts";

/** Wrappers that change whether a value must be given, not what it is. */
const WRAPPERS = ["default", "prefault", "optional", "nullable", "readonly", "catch"];

type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; defaultValue?: unknown; discriminator?: string; options?: z.ZodType[] };

/** A field's schema under its wrappers: what it is, its description (the outermost one given) and its default. */
export interface Unwrapped {
  schema: z.ZodType;
  description: string | undefined;
  /** The outermost `.default()`'s value; undefined when the field has none. */
  fallback: unknown;
}

/**
 * Strips default/prefault/optional/nullable/readonly/catch wrappers (and, with `pipes`, the input side of a
 * `.transform()` or `.pipe()`), so config readers see the value's own schema: object, number, enum, record.
 */
export const unwrapSchema = (s: z.ZodType, o: { pipes?: boolean } = {}): Unwrapped => {
  let at = s;
  let description = s.description;
  let fallback: unknown;
  let defaulted = false;
  for (;;) {
    const def = at._zod.def as Def;
    if (def.innerType && WRAPPERS.includes(def.type)) {
      if (def.type === "default" && !defaulted) [fallback, defaulted] = [def.defaultValue, true];
      at = def.innerType;
    } else if (o.pipes && def.type === "pipe" && def.in) at = def.in;
    else return { schema: at, description, fallback };
    description ??= at.description;
  }
};

/**
 * The object schema a mapping is read by, under the wrappers: the schema itself, or, for a union on a discriminator
 * (an LLM role's `provider`), the option whose discriminator takes `value`'s, an absent one included.
 */
export const objectSchemaFor = (s: z.ZodType, value: unknown, o: { pipes?: boolean } = {}): z.ZodObject | undefined => {
  const inner = unwrapSchema(s, o).schema;
  if (inner instanceof z.ZodObject) return inner;
  const { type, discriminator, options } = inner._zod.def as Def;
  if (type !== "union" || !discriminator || !options) return undefined;
  const tag = valueAt(value, [discriminator]);
  for (const option of options) {
    const read = objectSchemaFor(option, value, o);
    if ((read?.shape[discriminator] as z.ZodType | undefined)?.safeParse(tag).success) return read;
  }
  return undefined;
};
