import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import { ConfigError } from "../errors.ts";
import type { Bank } from "./bank.ts";
import { LESSONS_MAX } from "./lesson.ts";
import { checkBankEntries, withinCaps, type BankCaps, type PayloadSchema } from "./bank-check.ts";
import { BankData } from "./run-records.ts";

/** A bank shipped in skills/banks/ (or exported from a run) for the Offline / Off2On initialisation. */
export const ShippedBank = BankData.extend({
  schemaVersion: z.literal(1),
  level: z.string(),
  source: z.string().describe("where the bank came from: run id, agent, evolver"),
});
export type ShippedBank = z.infer<typeof ShippedBank>;

/** The file around the entries; each entry is checked on its own (bank-check.ts), so a refusal names it. */
const ShippedEnvelope = ShippedBank.extend({
  skills: z.array(z.unknown()),
  mistakes: z.array(z.unknown()),
  lessons: z.array(z.unknown()).max(LESSONS_MAX).optional(),
});

/** How a bank file is checked where it enters: the family's payload schema and the run's caps (absent: none). */
export interface BankFileCheck {
  payload?: PayloadSchema;
  caps?: BankCaps;
  /** Told when the file holds more entries than the caps keep. */
  note?: (line: string) => void;
}

/** A bank file, every entry checked, within the caps. */
export const readShippedBank = (path: string, check: BankFileCheck = {}): ShippedBank => {
  if (!existsSync(path)) throw new ConfigError(`offline.banks: no such file (got ${JSON.stringify(path)}); see skills/banks/ for shipped banks`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new ConfigError(`${path}: not valid JSON (${(e as Error).message})`);
  }
  const parsed = ShippedEnvelope.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new ConfigError(`${path}: ${i.path.join(".") || "(bank)"}: ${i.message}`);
  }
  const bank = checkBankEntries(path, parsed.data, check.payload);
  const { skills: _s, mistakes: _m, lessons: _l, ...envelope } = parsed.data;
  if (!check.caps) return { ...envelope, ...bank };
  const capped = withinCaps(path, bank, check.caps);
  capped.notes.forEach((line) => check.note?.(line));
  return { ...envelope, ...capped.bank };
};

/** Each level's shipped bank; two files for one level is an error. */
export const readShippedBanks = (paths: readonly string[], check: BankFileCheck = {}): Map<string, Bank> => {
  const out = new Map<string, Bank>();
  for (const p of paths) {
    const b = readShippedBank(p, check);
    if (out.has(b.level)) throw new ConfigError(`offline.banks: two banks for ${b.level} (the second is ${p}); give one per level`);
    out.set(b.level, { skills: b.skills, mistakes: b.mistakes, ...(b.lessons ? { lessons: b.lessons } : {}) });
  }
  return out;
};
