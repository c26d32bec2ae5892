import type { GbnfJsonSchema } from "node-llama-cpp";
import { InvariantError } from "../../errors.ts";

/**
 * A tool's or an answer's JSON schema as the subset node-llama-cpp turns into a grammar (GbnfJsonSchema): types,
 * properties and required keys, items, const, enum, anyOf/oneOf, $ref into $defs, string lengths and formats.
 * What a grammar cannot hold (number bounds, patterns) is left to the parser that reads the answer (the tool's zod
 * schema): the grammar guarantees the shape, the parser the values. An object gets no keys beyond its properties
 * unless its schema asks for them.
 */
type Json = Record<string, unknown>;

const IMMUTABLE = new Set(["string", "number", "integer", "boolean", "null"]);
const FORMATS = new Set(["date-time", "time", "date"]);

/** Any JSON value, for a schema that says nothing. */
const ANY: GbnfJsonSchema = {
  oneOf: [{ type: ["string", "number", "boolean", "null"] }, { type: "object", additionalProperties: true }, { type: "array" }],
};

const refOf = (ref: string, where: string): string => {
  const m = /^#\/(?:\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (!m) throw new InvariantError(`${where}: $ref ${JSON.stringify(ref)} is not a local #/$defs/<name> reference; inline it`);
  return `#/$defs/${m[1]}`;
};

const only = (s: Json, keys: readonly string[]): Json => Object.fromEntries(keys.filter((k) => s[k] !== undefined).map((k) => [k, s[k]]));

const objectOf = (s: Json, where: string): GbnfJsonSchema => {
  const props = (s.properties ?? {}) as Record<string, Json>;
  const extra = s.additionalProperties;
  return {
    type: "object",
    properties: Object.fromEntries(Object.entries(props).map(([k, v]) => [k, toGbnfSchema(v, `${where}.${k}`)])),
    required: Array.isArray(s.required) ? (s.required as string[]) : [],
    additionalProperties: typeof extra === "object" && extra !== null ? toGbnfSchema(extra as Json, `${where}.*`) : extra === true,
    ...only(s, ["minProperties", "maxProperties"]),
  } as GbnfJsonSchema;
};

const arrayOf = (s: Json, where: string): GbnfJsonSchema =>
  ({
    type: "array",
    ...(s.items && typeof s.items === "object" ? { items: toGbnfSchema(s.items as Json, `${where}[]`) } : {}),
    ...(Array.isArray(s.prefixItems) ? { prefixItems: (s.prefixItems as Json[]).map((p, i) => toGbnfSchema(p, `${where}[${i}]`)) } : {}),
    ...only(s, ["minItems", "maxItems"]),
  }) as GbnfJsonSchema;

const typedOf = (type: string, s: Json, where: string): GbnfJsonSchema => {
  if (type === "object") return objectOf(s, where);
  if (type === "array") return arrayOf(s, where);
  if (type === "string")
    return typeof s.format === "string" && FORMATS.has(s.format)
      ? { type, format: s.format as "date" }
      : ({ type, ...only(s, ["minLength", "maxLength"]) } as GbnfJsonSchema);
  if (IMMUTABLE.has(type)) return { type } as GbnfJsonSchema;
  throw new InvariantError(`${where}: type ${JSON.stringify(type)} is not a JSON schema type`);
};

/** The grammar schema of a JSON schema; `where` names it in errors (e.g. "tool throw_ball"). */
export const toGbnfSchema = (schema: Json, where: string): GbnfJsonSchema => {
  const defs = schema.$defs ?? schema.definitions;
  const withDefs = (g: GbnfJsonSchema): GbnfJsonSchema =>
    defs && typeof defs === "object"
      ? ({
          ...g,
          $defs: Object.fromEntries(Object.entries(defs as Record<string, Json>).map(([k, v]) => [k, toGbnfSchema(v, `${where}.$defs.${k}`)])),
        } as GbnfJsonSchema)
      : g;
  if (typeof schema.$ref === "string") return withDefs({ $ref: refOf(schema.$ref, where) } as GbnfJsonSchema);
  if ("const" in schema) return { const: schema.const } as GbnfJsonSchema;
  if (Array.isArray(schema.enum)) return { enum: schema.enum } as GbnfJsonSchema;
  const union = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (Array.isArray(union)) return withDefs({ oneOf: union.map((u, i) => toGbnfSchema(u, `${where}|${i}`)) });
  const type = schema.type;
  if (Array.isArray(type)) {
    const types = type as string[];
    if (types.every((t) => IMMUTABLE.has(t))) return { type: types } as GbnfJsonSchema;
    return withDefs({ oneOf: types.map((t) => typedOf(t, schema, where)) });
  }
  if (typeof type === "string") return withDefs(typedOf(type, schema, where));
  if (schema.properties) return withDefs(objectOf(schema, where));
  return ANY;
};

/** A tool as the model is told of it: OpenAI's function shape (what langchain's convertToOpenAITool gives). */
export interface FunctionTool {
  type: "function";
  function: { name: string; description?: string; parameters?: Json };
}

/** The grammar schema of one call of any of `tools`: `{"name": <one tool's name>, "arguments": <its arguments>}`. */
export const toolCallSchema = (tools: readonly FunctionTool[]): GbnfJsonSchema => ({
  oneOf: tools.map(({ function: f }) => ({
    type: "object",
    properties: {
      name: { const: f.name },
      arguments: toGbnfSchema(f.parameters ?? { type: "object", properties: {} }, `tool ${f.name}`),
    },
    required: ["name", "arguments"],
  })),
});
