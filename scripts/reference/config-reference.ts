import { z } from "zod";
import type { AppContext } from "../../src/app/context.ts";
import { composeRunConfig } from "../../src/loop/run-config.ts";
import { secretPaths } from "../../src/util/secret-fields.ts";
import { generatedBanner, table } from "./markdown.ts";

/**
 * docs/reference/config.md from the run config's zod schema: the generic RunConfig composed with every family's
 * slice (src/loop/run-config.ts, as `hexa run --print-config` composes it), turned into JSON Schema and walked into
 * one table per section. Secret fields (src/util/secret-fields.ts) are marked as coming from the environment.
 */

interface Node {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  properties?: Record<string, Node>;
  additionalProperties?: Node | boolean;
  items?: Node;
  anyOf?: Node[];
  oneOf?: Node[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  format?: string;
}

/** A section of the page: a dotted path and the object schema found there. */
interface Section {
  path: string;
  node: Node;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

const bounds = (n: Node): string => {
  const parts = [
    n.minimum !== undefined ? `≥ ${n.minimum}` : "",
    n.exclusiveMinimum !== undefined ? `> ${n.exclusiveMinimum}` : "",
    n.maximum !== undefined && n.maximum < MAX_SAFE ? `≤ ${n.maximum}` : "",
    n.exclusiveMaximum !== undefined ? `< ${n.exclusiveMaximum}` : "",
  ].filter(Boolean);
  return parts.length ? ` (${parts.join(", ")})` : "";
};

const isObject = (n: Node): boolean => n.type === "object" && n.properties !== undefined;

/** The distinguishing constant of one option of a union of objects, e.g. `provider: "openai"`. */
const tagOf = (n: Node): string | undefined => {
  const entry = Object.entries(n.properties ?? {}).find(([, p]) => p.const !== undefined);
  return entry ? `${entry[0]}: ${JSON.stringify(entry[1].const)}` : undefined;
};

/** A schema's type in words: `integer (≥ 1)`, `"a" or "b"`, `array of string`, `map of name → number` … */
const typeOf = (n: Node): string => {
  if (n.const !== undefined) return JSON.stringify(n.const);
  if (n.enum) return n.enum.map((v) => JSON.stringify(v)).join(" or ");
  const options = n.anyOf ?? n.oneOf;
  if (options) return options.map((o) => (isObject(o) ? `object (${tagOf(o) ?? "see below"})` : typeOf(o))).join(" or ");
  if (n.type === "array") return `array of ${n.items ? typeOf(n.items) : "anything"}`;
  if (n.type === "object" && !n.properties) {
    const values = typeof n.additionalProperties === "object" ? n.additionalProperties : undefined;
    return `map of name → ${values && Object.keys(values).length ? typeOf(values) : "anything"}`;
  }
  if (n.type === "object") return "object (see below)";
  const base = Array.isArray(n.type) ? n.type.join(" or ") : (n.type ?? "anything");
  return `${base}${n.format ? ` (${n.format})` : ""}${bounds(n)}`;
};

/** The sections below one field: its own object, each object option of a union, the values of a map of objects. */
const sectionsUnder = (path: string, n: Node): Section[] => {
  if (isObject(n)) return [{ path, node: n }, ...fieldsSections(path, n)];
  const options = (n.anyOf ?? n.oneOf ?? []).filter(isObject);
  if (options.length) return options.flatMap((o) => sectionsUnder(`${path} (${tagOf(o) ?? "object"})`, o));
  if (typeof n.additionalProperties === "object" && isObject(n.additionalProperties)) return sectionsUnder(`${path}.<name>`, n.additionalProperties);
  if (n.type === "array" && n.items && isObject(n.items)) return sectionsUnder(`${path}[]`, n.items);
  return [];
};

const fieldsSections = (path: string, n: Node): Section[] =>
  Object.entries(n.properties ?? {}).flatMap(([k, field]) => sectionsUnder(path ? `${path}.${k}` : k, field));

/** The dotted path of a key for the secret list: option tags and map names dropped. */
const plainPath = (path: string): string => path.replace(/ \([^)]*\)/g, "").replace(/\.<name>/g, ".*");

const defaultOf = (field: Node, required: boolean): string => {
  if (field.default !== undefined) return `\`${JSON.stringify(field.default)}\``;
  return required ? "required" : "—";
};

const sectionTable = (s: Section, secrets: ReadonlySet<string>): string => {
  const required = new Set((s.node as { required?: string[] }).required ?? []);
  const rows = Object.entries(s.node.properties ?? {}).map(([k, field]) => {
    const path = s.path ? `${s.path}.${k}` : k;
    const secret = secrets.has(plainPath(path)) ? "secret: from the environment. " : "";
    return [`\`${k}\``, typeOf(field), defaultOf(field, required.has(k) && field.default === undefined), `${secret}${field.description ?? "—"}`];
  });
  const heading = s.path ? `## \`${s.path}\`` : "## Top level";
  return [heading, ...(s.node.description ? [s.node.description] : []), table(["Key", "Type", "Default", "Description"], rows)].join("\n\n");
};

/** The whole page, as committed to docs/reference/config.md. */
export const configReference = async (ctx: AppContext): Promise<string> => {
  await ctx.families.load();
  const schema = composeRunConfig(ctx.families.all());
  const root = z.toJSONSchema(schema, { unrepresentable: "any", io: "input" }) as Node;
  const secrets = new Set(secretPaths(schema));
  const sections = [{ path: "", node: root }, ...fieldsSections("", root)];
  return `${[
    generatedBanner("Run-config reference", "the zod schema of src/loop/run-config.ts and each level family's config slice"),
    "Every key of a run config (`hexa run CONFIG.yaml`), one table per section, with its type, default and meaning. Unknown keys are errors. `hexa run --print-config` prints every default as commented YAML. A key marked secret is never written to a run's config.yaml: give it through the environment (docs/security.md). Guides: [rounds and banks](../guides/rounds-and-banks.md).",
    ...sections.map((s) => sectionTable(s, secrets)),
  ].join("\n\n")}\n`;
};
