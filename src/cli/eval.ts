import type { Argv } from "yargs";
import type { AppContext } from "../app/context.ts";
import { ConfigError } from "../errors.ts";
import { type ArgsOf, defineCommand } from "../cli-kit/define-command.ts";
import { intFlag } from "../cli-kit/flags.ts";
import { asUserError } from "../cli-kit/write-file.ts";
import { budgetOptions, DOCTOR_OPTION } from "./guard-flags.ts";
import { TRUST_RUN_CONFIG_OPTION } from "./trust-flag.ts";

const numbers = (text: string, example: string): number[] => {
  const seeds = text.split(",").map((s) => (s.trim() === "" ? NaN : Number(s.trim())));
  if (!seeds.length || !seeds.every((s) => Number.isSafeInteger(s) && s >= 0)) {
    throw new ConfigError(`--seeds must be comma-separated non-negative integers, e.g. ${example} (got ${JSON.stringify(text)})`);
  }
  return [...new Set(seeds)];
};

/**
 * `--seeds 60,61,62` (the same seeds on every level) or `--seeds catapult=60,61;pass_the_parcel=70,71` (per level;
 * a level left out is not evaluated): levels' certified lists differ, so a seed unseen on one may be seen on another.
 */
export const seedList = (v: unknown): number[] | Record<string, number[]> | undefined => {
  if (v === undefined) return undefined;
  const text = (Array.isArray(v) ? v : [v]).map(String).join(",");
  if (!text.includes("=")) return numbers(text, "--seeds 60,61,62");
  const out: Record<string, number[]> = {};
  for (const part of text.split(";").filter((p) => p.trim())) {
    const [level, list, extra] = part.split("=");
    if (!level?.trim() || list === undefined || extra !== undefined)
      throw new ConfigError(`--seeds: per-level seeds read LEVEL=S,S;LEVEL=S, e.g. --seeds LEVEL_A=60,61;LEVEL_B=70 (got ${JSON.stringify(part)})`);
    if (out[level.trim()]) throw new ConfigError(`--seeds: ${level.trim()} is given twice`);
    out[level.trim()] = numbers(list, "--seeds LEVEL_A=60,61;LEVEL_B=70");
  }
  return out;
};

const evalFlags = (y: Argv) =>
  budgetOptions(y, "this evaluation (the run's budget caps the run, not its evaluations); a rerun of a stopped evaluation may raise it")
    .positional("run", { type: "string", demandOption: true, describe: "a finished run directory, e.g. runs/<id>" })
    .option("seeds", {
      type: "string",
      coerce: seedList,
      describe: "these seeds on every level (refused if the run learned from one), e.g. 60,61,62; or per level: LEVEL_A=60,61;LEVEL_B=70",
    })
    .option("count", {
      type: "string",
      default: 10,
      coerce: intFlag("count", 1, 10_000),
      describe: "without --seeds: the next N vetted seeds the run never saw, per level",
    })
    .option("trust-run-config", TRUST_RUN_CONFIG_OPTION)
    .option("doctor", DOCTOR_OPTION);

/** The flags `hexa eval` reads (src/cli/eval-held-out.ts). */
export type EvalArgs = ArgsOf<typeof evalFlags>;

export const evalCommand = (ctx: AppContext) =>
  defineCommand({
    command: "eval <run>",
    describe:
      "held-out evaluation: the run's final bank on seeds it never learned from; writes runs/<id>/eval/<time>.jsonl. Endpoints, trainer command and paths come from you (environment, defaults), not from the run's config.yaml, unless --trust-run-config",
    builder: evalFlags,
    handler: async (argv) => {
      // The evaluation's modules (stores, models, the loop) are loaded only here: `hexa eval --help` starts fast.
      const { evaluate } = await import("./eval-held-out.ts");
      try {
        await evaluate(ctx.families, argv, ctx.actorMiddleware, ctx.embedded);
      } catch (e) {
        throw asUserError(
          e,
          "hexa eval writes its results under the run's eval/ folder: make the run directory writable, or copy the run and evaluate the copy",
        );
      }
    },
  });
