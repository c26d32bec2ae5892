import { existsSync } from "node:fs";
import type { AppContext } from "../app/context.ts";
import { NO_MIDDLEWARE } from "../app/middleware-plugins.ts";
import { join } from "node:path";
import { ConfigError } from "../errors.ts";
import { defineCommand } from "../cli-kit/define-command.ts";
import { prepareVerifyTarget } from "../bundle/prepare-verify-target.ts";
import { exitCodeOf, reportText } from "../verify/outcome.ts";
import { terminalText } from "../util/terminal-text.ts";

const count = (name: string) => (v: unknown) => {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) throw new ConfigError(`--${name} must be a whole number ≥ 0 (got ${JSON.stringify(v)})`);
  return v;
};

/** `--trainer-command "node my-trainer.js --fast"`: the words of a command, split at spaces (no shell, no quoting). */
const commandWords = (v: unknown): string[] => {
  const words = String(v).trim().split(/\s+/).filter(Boolean);
  if (!words.length)
    throw new ConfigError(`--trainer-command needs a program and its arguments, e.g. --trainer-command "python my_trainer.py" (got ${JSON.stringify(v)})`);
  return words;
};

export const verifyCommand = (ctx: AppContext) =>
  defineCommand({
    command: "verify <dir>",
    describe:
      "re-execute a recorded run offline (models answered from its llm-log.jsonl, trainings from its recorded results) and say identical or where it diverged; no endpoint, command, server or path named in the run's files is used (docs/security.md)",
    builder: (y) =>
      y
        .positional("dir", {
          type: "string",
          demandOption: true,
          describe:
            "a run directory (runs/<id>), a hexa compare or hexa search directory, a hexa judge folder (judgment.json), or a bundle (FILE.tar.gz from hexa bundle)",
        })
        .option("retrain", {
          type: "number",
          default: 0,
          coerce: count("retrain"),
          describe: "train this many recorded trainings again, chosen at random, and compare their F",
        })
        .option("trainer-command", {
          type: "string",
          coerce: commandWords,
          describe:
            "--retrain with your own trainer: its program and arguments, separated by spaces (default: the built-in trainer; a run's own trainer.command is never run)",
        })
        .option("trainer-cache", {
          type: "string",
          describe:
            "the folder holding a run directory's recorded trainings (default: the bundle's own, else .trainer-cache beside the run; never the cacheDir its config names)",
        })
        .option("retrain-seed", { type: "number", coerce: count("retrain-seed"), describe: "the seed that chooses them (unset: drawn and printed)" })
        .option("tolerance", {
          type: "number",
          describe: "largest |F difference| of a retrained training; unset: 0 (exact) for the built-in trainer, 0.05 for --trainer-command",
        })
        .option("record", { type: "boolean", default: false, describe: "write the result to DIR/verification.json (hexa inspect shows it); not for a bundle" })
        .option("strict", {
          type: "boolean",
          default: false,
          describe: "refuse a bundle made by other code than this checkout (default: a warning listing what differs)",
        }),
    handler: async (argv) => {
      const log = (line: string) => process.stderr.write(`${terminalText(line)}\n`);
      const target = await prepareVerifyTarget(argv.dir, { strict: argv.strict });
      try {
        for (const w of target.warnings) log(w);
        if (target.manifestHash) log(`bundle ${argv.dir}: MANIFEST intact, manifest hash ${target.manifestHash}`);
        const seed = argv["retrain-seed"] ?? (argv.retrain > 0 ? Math.floor(Math.random() * 2 ** 31) : undefined);
        log(`verifying ${argv.dir}: replaying it offline${seed === undefined ? "" : `; retrain seed ${seed}`}`);
        // A verify replays what was recorded: the user's middleware could change the requests (docs/security.md).
        if (ctx.actorMiddleware.names.length)
          log(`note: HEXA_MIDDLEWARE is ignored: a verify replays the run without your middleware (${ctx.actorMiddleware.names.join(", ")})`);
        // The replay's modules (the model layer among them) load here, so that --help stays quick.
        const { recordVerification, verifyRunDirectory } = await import("./verify-directory.ts");
        const report = await verifyRunDirectory({ ...ctx, actorMiddleware: NO_MIDDLEWARE }, target.runDir, {
          retrain: argv.retrain,
          ...(seed === undefined ? {} : { retrainSeed: seed }),
          ...(argv.tolerance === undefined ? {} : { tolerance: argv.tolerance }),
          ...(argv["trainer-command"] === undefined ? {} : { trainerCommand: argv["trainer-command"] }),
          ...(argv["trainer-cache"] === undefined ? {} : { trainerCache: argv["trainer-cache"] }),
          log,
        });
        (report.status === "cannot" ? process.stderr : process.stdout).write(`${reportText(report)}\n`);
        if (argv.record) recordIn(target.manifestHash === undefined ? argv.dir : undefined, (dir) => recordVerification(dir, report), log);
        process.exitCode = exitCodeOf(report.status);
      } finally {
        target.cleanup();
      }
    },
  });

/** `--record`: verification.json in a run, compare or search directory; a bundle's replay happens in a temporary copy. */
const recordIn = (dir: string | undefined, record: (dir: string) => string, log: (l: string) => void): void => {
  if (dir === undefined) log("not recorded: a bundle is verified in a temporary copy; verify its run directory with --record to keep the result");
  else if (["run.json", "compare.json", "search.json"].some((f) => existsSync(join(dir, f)))) log(`recorded: ${record(dir)}`);
  else log(`not recorded: ${dir} is not a run, compare or search directory`);
};
