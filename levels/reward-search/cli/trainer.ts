import { positiveIntFlag } from "../../../src/cli-kit/flags.ts";
import { readFileSync } from "node:fs";
import type { Argv, CommandModule } from "yargs";
import { defineCommand } from "../../../src/cli-kit/define-command.ts";
import { ConfigError } from "../../../src/errors.ts";

/** The command after `--`, e.g. `hexa trainer check -- python train.py --gpu`. */
const commandAfterDashes = (argv: Record<string, unknown>): string[] | undefined => {
  const rest = (argv["--"] as unknown[] | undefined) ?? [];
  const i = process.argv.indexOf("--");
  const cmd = rest.length ? rest.map(String) : i >= 0 ? process.argv.slice(i + 1) : [];
  return cmd.length ? cmd : undefined;
};

const readRewardFile = (path: string): string => {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    throw new ConfigError(`--reward-file: cannot read ${path} (${(e as Error).message}); give the path of a reward the trainer accepts`);
  }
};

const check = defineCommand({
  command: "check",
  describe: "check a trainer command against the trainer protocol (default: the built-in trainer); `-- CMD...` names another",
  builder: (y) =>
    y
      .parserConfiguration({ "populate--": true })
      .option("task", { type: "string", describe: "task of the training checks (default: cartpole, else the first served)" })
      .option("steps", { type: "number", default: 2048, coerce: positiveIntFlag("steps"), describe: "env steps of the tiny training job" })
      .option("start-timeout", { type: "number", default: 60, coerce: positiveIntFlag("start-timeout"), describe: "seconds the trainer may take to say hello" })
      .option("reward-file", { type: "string", describe: "a valid reward for the trainer's own reward language (default: a JavaScript alive bonus)" })
      .option("verbose", { type: "boolean", default: false, describe: "show the trainer's stderr" })
      .example("$0 trainer check", "the built-in trainer")
      .example("$0 trainer check -- python my_trainer.py --device cuda", "another trainer"),
  handler: async (argv) => {
    const command = commandAfterDashes(argv);
    // The trainer client is loaded only here: `hexa trainer check --help` starts fast.
    const { formatConformance, runConformance } = await import("../trainer/conformance.ts");
    const checks = await runConformance({
      ...(command ? { command } : {}),
      ...(argv.task ? { task: argv.task } : {}),
      steps: argv.steps,
      ...(argv["reward-file"] ? { reward: readRewardFile(argv["reward-file"]) } : {}),
      startTimeoutMs: argv["start-timeout"] * 1000,
      ...(argv.verbose ? { onLog: (l: string) => process.stderr.write(`trainer: ${l}\n`) } : {}),
      onCheck: (c) => process.stderr.write(`${c.ok ? "pass" : "FAIL"} ${c.name}\n`),
    });
    process.stdout.write(`${formatConformance(command, checks)}\n`);
    process.exitCode = checks.every((c) => c.ok) ? 0 : 1;
  },
});

export const trainerCommand: CommandModule = {
  command: "trainer <command>",
  describe: "the training process behind reward search (docs/trainer-protocol.md)",
  builder: (y: Argv) => y.command(check).demandCommand(1, "name a trainer subcommand; see --help"),
  handler: () => {},
};
