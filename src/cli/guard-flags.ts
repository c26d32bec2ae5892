import type { Argv } from "yargs";

/**
 * The flags that guard a start (hexa run, eval, compare, doctor): the spend cap and the endpoint pre-flight. They
 * are what each command's `--help` lists, so this module imports nothing heavier than yargs' types.
 */

/** --budget-usd / --budget-tokens / --yes, shared by hexa run, eval and compare (read by src/app/budget.ts `budgetFrom`). */
export const budgetOptions = <T>(y: Argv<T>, scope: string) =>
  y
    .option("budget-usd", { type: "number", describe: `spend cap in USD for ${scope} (overrides budget.usd)` })
    .option("budget-tokens", { type: "number", describe: `token cap (input + output, cache hits excluded) for ${scope} (overrides budget.tokens)` })
    .option("yes", { type: "boolean", default: false, describe: "start even when the cost forecast exceeds the cap (the run still stops at the cap)" });

/** --doctor / --no-doctor (read by src/app/preflight.ts `doctorSkipped`). */
export const DOCTOR_OPTION = {
  type: "boolean",
  default: true,
  describe: "check each LLM role's endpoint first, as hexa doctor does (cached an hour per endpoint+model in the runs folder); --no-doctor skips it",
} as const;
