import { z } from "zod";

/**
 * The config's secret fields, marked where each is declared (docs/security.md): `key` is a credential as a whole
 * (an API key, a token), removed from a copy; `url-password` is a URL whose password part is the secret (a
 * Redis URL), kept without it. Everything that leaves the process a config was given to (a job in Redis,
 * config.yaml, a message) goes through `withoutSecrets` with the schema that parsed it.
 */
type SecretKind = "key" | "url-password";
const secretFields = z.registry<{ secret: SecretKind }>();

/** Marks a field's schema as a secret; wrappers added after it (`.optional()`, `.default()`) keep the mark. */
export const secret = <T extends z.ZodType>(schema: T, kind: SecretKind = "key"): T => {
  secretFields.add(schema, { secret: kind });
  return schema;
};

type Def = { type: string; innerType?: z.ZodType; shape?: Record<string, z.ZodType>; options?: z.ZodType[]; valueType?: z.ZodType; element?: z.ZodType };
const defOf = (s: z.ZodType): Def => s._zod.def as unknown as Def;

/** The mark on a schema or on any wrapper it sits in. */
const kindOf = (s: z.ZodType): SecretKind | undefined => {
  for (let at: z.ZodType | undefined = s; at; at = defOf(at).innerType) {
    const mark = secretFields.get(at);
    if (mark) return mark.secret;
  }
  return undefined;
};

/** The schema under its optional/default/prefault/nullable/readonly wrappers. */
const bare = (s: z.ZodType): z.ZodType => {
  let at = s;
  while (defOf(at).innerType) at = defOf(at).innerType!;
  return at;
};

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * `text` with everything between its scheme and its last "@" shown as `***`: a URL's user and password hidden
 * whatever characters they hold, even one ("/", "#", "?") that breaks the URL's parse.
 */
export const credentialsHidden = (text: string): string => text.replace(/^([a-z][a-z\d+.-]*:\/\/)?.*@/is, (_m, scheme?: string) => `${scheme ?? ""}***@`);

/**
 * A URL with its password removed (user names are kept); text that is no URL is left as it is, unless it holds an
 * "@" the URL's parse did not read as the end of a user and password: then all before that "@" is hidden.
 */
export const urlWithoutPassword = (text: string): string => {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return credentialsHidden(text);
  }
  if (!u.password) return u.username || !text.includes("@") ? text : credentialsHidden(text);
  u.password = "";
  return u.toString().replace(/\/$/, text.endsWith("/") ? "/" : "");
};

/** `value` as `schema` reads it, every marked field dropped (`key`) or cleaned (`url-password`); a copy, the input is untouched. */
export const withoutSecrets = <T>(value: T, schema: z.ZodType): T => strip(value, schema) as T;

const strip = (value: unknown, schema: z.ZodType): unknown => {
  const def = defOf(bare(schema));
  if (def.type === "union") return (def.options ?? []).reduce<unknown>((v, option) => strip(v, option), value);
  if (def.type === "array" && Array.isArray(value) && def.element) return value.map((v) => strip(v, def.element!));
  if (!isRecord(value)) return value;
  if (def.type === "record" && def.valueType) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, strip(v, def.valueType!)]));
  if (def.type !== "object" || !def.shape) return value;
  const shape = def.shape;
  // Own keys only: a config may hold `constructor` or `__proto__` keys (refused later by the schema, never inherited here).
  return Object.fromEntries(
    Object.entries(value).flatMap(([k, v]) => {
      const field = Object.hasOwn(shape, k) ? shape[k] : undefined;
      const kind = field && kindOf(field);
      if (kind === "key") return [];
      return [[k, kind === "url-password" && typeof v === "string" ? urlWithoutPassword(v) : field ? strip(v, field) : v]];
    }),
  );
};

/** The dotted paths of every marked field (`llm.actor.apiKey`); a union's options share their parent's path. */
export const secretPaths = (schema: z.ZodType, prefix = ""): string[] => {
  const def = defOf(bare(schema));
  if (def.type === "union") return [...new Set((def.options ?? []).flatMap((o) => secretPaths(o, prefix)))];
  if (def.type === "record" && def.valueType) return secretPaths(def.valueType, `${prefix}*.`);
  if (def.type === "array" && def.element) return secretPaths(def.element, `${prefix}*.`);
  if (def.type !== "object" || !def.shape) return [];
  return Object.entries(def.shape).flatMap(([k, field]) => (kindOf(field) ? [`${prefix}${k}`] : secretPaths(field, `${prefix}${k}.`)));
};

/** Every field path of a schema whose last name reads like a credential, marked or not: the guard that a new one gets marked. */
export const credentialLikePaths = (schema: z.ZodType, prefix = ""): string[] => {
  const def = defOf(bare(schema));
  if (def.type === "union") return [...new Set((def.options ?? []).flatMap((o) => credentialLikePaths(o, prefix)))];
  if (def.type === "record" && def.valueType) return credentialLikePaths(def.valueType, `${prefix}*.`);
  if (def.type === "array" && def.element) return credentialLikePaths(def.element, `${prefix}*.`);
  if (def.type !== "object" || !def.shape) return [];
  return Object.entries(def.shape).flatMap(([k, field]) => [
    ...(/(key|token|password|secret|credential|auth)$/i.test(k) ? [`${prefix}${k}`] : []),
    ...credentialLikePaths(field, `${prefix}${k}.`),
  ]);
};
