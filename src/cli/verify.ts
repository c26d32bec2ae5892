import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../errors.ts";
import { defineCommand } from "../cli-kit/define-command.ts";
import { exitCodeOf, reportText } from "../verify/outcome.ts";
import { recordVerification, verifyRunDirectory } from "./verify-directory.ts";

const count = (name: string) => (v: unknown) => {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) throw new ConfigError(`--${name} must be a whole number ≥ 0 (got ${JSON.stringify(v)})`);
  return v;
};

export const verifyCommand = defineCommand({
  command: "verify <dir>",
  describe: "re-execute a recorded run offline (models answered from llm-log.jsonl, trainings from the trainer cache) and say identical or where it diverged",
  builder: (y) =>
    y
      .positional("dir", { type: "string", demandOption: true, describe: "a run directory (runs/<id>) or a hexa compare directory" })
      .option("retrain", {
        type: "number",
        default: 0,
        coerce: count("retrain"),
        describe: "train this many recorded trainings again, chosen at random, and compare their F",
      })
      .option("retrain-seed", { type: "number", coerce: count("retrain-seed"), describe: "the seed that chooses them (unset: drawn and printed)" })
      .option("tolerance", {
        type: "number",
        describe: "largest |F difference| of a retrained training; unset: 0 (exact) for the built-in trainer, 0.05 for a trainer command",
      })
      .option("record", { type: "boolean", default: false, describe: "write the result to DIR/verification.json (hexa inspect shows it)" }),
  handler: async (argv) => {
    const seed = argv["retrain-seed"] ?? (argv.retrain > 0 ? Math.floor(Math.random() * 2 ** 31) : undefined);
    const log = (line: string) => process.stderr.write(`${line}\n`);
    log(`verifying ${argv.dir}: replaying it offline${seed === undefined ? "" : `; retrain seed ${seed}`}`);
    const report = await verifyRunDirectory(argv.dir, {
      retrain: argv.retrain,
      ...(seed === undefined ? {} : { retrainSeed: seed }),
      ...(argv.tolerance === undefined ? {} : { tolerance: argv.tolerance }),
      log,
    });
    (report.status === "cannot" ? process.stderr : process.stdout).write(`${reportText(report)}\n`);
    if (argv.record && (existsSync(join(argv.dir, "run.json")) || existsSync(join(argv.dir, "compare.json"))))
      log(`recorded: ${recordVerification(argv.dir, report)}`);
    else if (argv.record) log(`not recorded: ${argv.dir} is not a run or compare directory`);
    process.exitCode = exitCodeOf(report.status);
  },
});
