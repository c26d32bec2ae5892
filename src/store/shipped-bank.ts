import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import { ConfigError } from "../errors.ts";
import type { Bank } from "./bank.ts";
import { BankData } from "./run-records.ts";

/** A bank shipped in skills/banks/ (or exported from a run) for the Offline / Off2On initialisation. */
export const ShippedBank = BankData.extend({
  schemaVersion: z.literal(1),
  level: z.string(),
  source: z.string().describe("where the bank came from: run id, agent, evolver"),
});
export type ShippedBank = z.infer<typeof ShippedBank>;

export const readShippedBank = (path: string): ShippedBank => {
  if (!existsSync(path)) throw new ConfigError(`offline.banks: no such file (got ${JSON.stringify(path)}); see skills/banks/ for shipped banks`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new ConfigError(`${path}: not valid JSON (${(e as Error).message})`);
  }
  const parsed = ShippedBank.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new ConfigError(`${path}: ${i.path.join(".") || "(bank)"}: ${i.message}`);
  }
  return parsed.data;
};

/** Each level's shipped bank; two files for one level is an error. */
export const readShippedBanks = (paths: readonly string[]): Map<string, Bank> => {
  const out = new Map<string, Bank>();
  for (const p of paths) {
    const b = readShippedBank(p);
    if (out.has(b.level)) throw new ConfigError(`offline.banks: two banks for ${b.level} (the second is ${p}); give one per level`);
    out.set(b.level, { skills: b.skills, mistakes: b.mistakes });
  }
  return out;
};
