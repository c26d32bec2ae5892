import { ConfigError } from "../errors.ts";

/** A task seed from a flag, a file or a model: a non-negative safe integer, else a ConfigError naming `where`. */
export const parseSeed = (raw: unknown, where = "seed"): number => {
  const n = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
    throw new ConfigError(`${where} must be a non-negative integer (got ${JSON.stringify(raw)})`);
  }
  return n;
};
