import { ConfigError } from "../errors.ts";
import type { Bank } from "../store/bank.ts";
import { checkBankEntries, type BankCaps, type PayloadSchema } from "../store/bank-check.ts";

/**
 * The bank an episode job carries, checked as a run checks a bank file where it enters (src/store/bank-check.ts):
 * within the run config's caps (bank.maxSkills / maxMistakes: every update leaves a level's bank within them,
 * docs/spec/method.md §3), then every entry with the bank schema and the family's payload schema. A bank that
 * fails is a ConfigError naming the job and the field, which a worker fails without retries.
 */
export const checkJobBank = (
  jobId: string,
  bank: { skills: readonly unknown[]; mistakes: readonly unknown[]; lessons?: readonly unknown[] | undefined },
  caps: BankCaps,
  payload: PayloadSchema,
): Bank => {
  for (const [key, cap, field] of [
    ["skills", caps.skills, "maxSkills"],
    ["mistakes", caps.mistakes, "maxMistakes"],
  ] as const)
    if (bank[key].length > cap)
      throw new ConfigError(
        `job ${jobId}: bank.${key}: ${bank[key].length} entries, over the run's cap of ${cap} (bank.${field}); a coordinator never sends more, so the job was not written by one`,
      );
  return checkBankEntries(`job ${jobId}: bank`, bank, payload);
};
