import { createHash } from "node:crypto";

/** JSON with object keys sorted at every depth, so equal values hash equally whatever their key order. */
const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );

export const sha256Hex = (value: unknown): string => createHash("sha256").update(canonicalJson(value)).digest("hex");
