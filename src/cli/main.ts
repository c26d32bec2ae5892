import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { HexaError, RunStopped } from "../errors.ts";
import { GENERIC_COMMANDS } from "./commands.ts";
import { closeFamilies, familyModules, loadPluginFamilies } from "../app/families.ts";
import { appHost } from "../app/host.ts";
import { provideFamilyHost } from "../family/host.ts";

// `hexa levels list | head` closes the pipe early; that is not an error.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(0);
  throw e;
});

provideFamilyHost(appHost);

await loadPluginFamilies().catch((e: unknown) => {
  if (!(e instanceof HexaError)) throw e;
  process.stderr.write(`hexa: ${e.message}\n`);
  process.exit(2);
});

// Every command is lazy (src/cli-kit/lazy-command.ts): only the one named is loaded, with what it imports.
const generic = GENERIC_COMMANDS.reduce(
  (y, c) => y.command(c),
  yargs(hideBin(process.argv))
    .scriptName("hexa")
    .usage("$0 <command>\n\nExperimentalist agents on level families: the Interphyre physics puzzles and reward-function search."),
);
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
  // A lazy command's coerce error reaches here as yargs' YError, past .fail(): the same user error.
  if (err instanceof HexaError || (err instanceof Error && err.name === "YError")) {
    process.stderr.write(`hexa: ${err.message}\n`);
    await closeFamilies();
    process.exit(err instanceof RunStopped ? 3 : 2);
  }
  throw err;
}
