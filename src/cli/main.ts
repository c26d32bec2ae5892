import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { HexaError, RunStopped } from "../errors.ts";
import { bankCommand } from "./bank.ts";
import { compareCommand } from "./compare.ts";
import { doctorCommand } from "./doctor.ts";
import { episodeCommand } from "./episode.ts";
import { evalCommand } from "./eval.ts";
import { closeFamilies, familyModules, loadPluginFamilies } from "./families.ts";
import { inspectCommand } from "./inspect.ts";
import { levelsCommand } from "./levels.ts";
import { runCommand } from "./run.ts";
import { transferCommand } from "./transfer.ts";
import { workerCommand } from "./worker.ts";
import { workersCommand } from "./workers.ts";

// `hexa levels list | head` closes the pipe early; that is not an error.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(0);
  throw e;
});

await loadPluginFamilies().catch((e: unknown) => {
  if (!(e instanceof HexaError)) throw e;
  process.stderr.write(`hexa: ${e.message}\n`);
  process.exit(2);
});

const generic = yargs(hideBin(process.argv))
  .scriptName("hexa")
  .usage("$0 <command>\n\nExperimentalist agents on level families: the Interphyre physics puzzles and reward-function search.")
  .command(levelsCommand)
  .command(episodeCommand)
  .command(runCommand)
  .command(evalCommand)
  .command(compareCommand)
  .command(doctorCommand)
  .command(bankCommand)
  .command(inspectCommand)
  .command(transferCommand)
  .command(workerCommand)
  .command(workersCommand);
// Each family's own commands (hexa play, hexa trainer …), from the registry.
const cli = familyModules()
  .flatMap((m) => m.commands ?? [])
  .reduce((y, c) => y.command(c), generic)
  .demandCommand(1, "name a command; see --help")
  .strict()
  .help()
  .fail((msg, err, y) => {
    // yargs re-throws an error from an option's `coerce` as a YError carrying the same message.
    if (err instanceof HexaError || err?.name === "YError") {
      process.stderr.write(`hexa: ${err.message}\n`);
    } else if (err) {
      throw err;
    } else {
      process.stderr.write(`${y.help()}\n\nhexa: ${msg}\n`);
    }
    process.exit(err instanceof RunStopped ? 3 : 2);
  });

try {
  await cli.parseAsync();
  // Trainer processes and workers a family started; they also exit on their own when stdin closes.
  await closeFamilies();
} catch (err) {
  if (err instanceof HexaError) {
    process.stderr.write(`hexa: ${err.message}\n`);
    await closeFamilies();
    process.exit(err instanceof RunStopped ? 3 : 2);
  }
  throw err;
}
