import { createHash } from "node:crypto";

/**
 * JSON with object keys sorted at every depth, so equal values give equal text whatever their key order: the
 * text hashed for the run config hash, the LLM response cache and the trainer cache. Keys sort by UTF-16 code
 * units; an object is rebuilt with its keys in that order, so integer-like keys still come first in ascending
 * order (JavaScript's own-key order), and a value's toJSON runs before its keys are sorted. Stored hashes depend
 * on these bytes: change nothing here without a new cache or config-hash version.
 */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );

/** The sha256 (hex) of a value's canonical JSON: equal values, equal hashes, whatever their key order. */
export const sha256Hex = (value: unknown): string => createHash("sha256").update(canonicalJson(value)).digest("hex");
