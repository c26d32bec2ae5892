import type { z } from "zod";
import { withoutSecrets } from "../util/secret-fields.ts";

/**
 * What keeps secrets out of a bundle (docs/security.md): the config's secret fields (src/util/secret-fields.ts, the one
 * list) are found in a config by stripping them, and every value a secret may have (those fields' values, the
 * environment's credentials) is looked for in every byte that would be packed.
 */

/** A secret value and where it came from: an environment variable's name or a config field's path (never the value). */
export interface SecretValue {
  source: string;
  value: string;
}

/** Shorter values are not looked for: they would match ordinary text, and are no credential anyway. */
const MIN_SECRET_CHARS = 8;
/** An environment variable whose name reads like a credential (the same words as secret-fields.ts's guard). */
const CREDENTIAL_NAME = /(key|token|password|secret|credentials?|auth)$/i;

const passwordOf = (text: string): string | undefined => {
  try {
    const u = new URL(text);
    return u.password ? decodeURIComponent(u.password) : undefined;
  } catch {
    return undefined;
  }
};

/** Each value `stripped` lacks that `raw` has, by dotted path: a removed field's value, or the password taken out of a URL. */
const removedValues = (raw: unknown, stripped: unknown, at: string): SecretValue[] => {
  if (raw === stripped) return [];
  if (typeof raw === "string") {
    const password = typeof stripped === "string" ? passwordOf(raw) : undefined;
    return [{ source: at, value: password ?? raw }];
  }
  if (raw && typeof raw === "object") {
    const other = stripped && typeof stripped === "object" ? (stripped as Record<string, unknown>) : {};
    return Object.entries(raw as Record<string, unknown>).flatMap(([k, v]) =>
      removedValues(v, Object.hasOwn(other, k) ? other[k] : undefined, at ? `${at}.${k}` : k),
    );
  }
  return [];
};

/** The secret fields set in `data` (a config as `schema` reads it), with their values; empty when it holds none. */
export const secretsInConfig = (data: unknown, schema: z.ZodType): SecretValue[] =>
  removedValues(data, withoutSecrets(data, schema), "").filter((s) => s.value.length > 0);

/** The environment's credentials: variables named like one, and the password of any URL a variable holds. */
export const secretsInEnv = (env: Record<string, string | undefined>): SecretValue[] =>
  Object.entries(env).flatMap(([name, value]) => {
    if (value === undefined) return [];
    if (CREDENTIAL_NAME.test(name)) return [{ source: `environment variable ${name}`, value }];
    const password = passwordOf(value);
    return password ? [{ source: `the password in environment variable ${name}`, value: password }] : [];
  });

/** For each file whose bytes hold a secret's value: `<file>: holds the value of <source>` (never the value itself). */
export const secretLeaks = (files: readonly { path: string; bytes: Uint8Array }[], secrets: readonly SecretValue[]): string[] => {
  const needles = secrets.filter((s) => s.value.length >= MIN_SECRET_CHARS).map((s) => ({ source: s.source, bytes: Buffer.from(s.value) }));
  return files.flatMap((f) => {
    const hay = Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength);
    return needles.filter((n) => hay.includes(n.bytes)).map((n) => `${f.path}: holds the value of ${n.source}`);
  });
};
