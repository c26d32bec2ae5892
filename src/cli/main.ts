import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { HexaError } from "../errors.ts";
import { levelsCommand } from "./levels.ts";
import { toolCommand } from "./tool.ts";

const cli = yargs(hideBin(process.argv))
  .scriptName("hexa")
  .usage("$0 <command>\n\nExperimentalist agents on the Interphyre physics puzzles.")
  .command(levelsCommand)
  .command(toolCommand)
  .demandCommand(1, "name a command; see --help")
  .strict()
  .help()
  .fail((msg, err, y) => {
    if (err instanceof HexaError) {
      process.stderr.write(`hexa: ${err.message}\n`);
    } else if (err) {
      throw err;
    } else {
      process.stderr.write(`${y.help()}\n\nhexa: ${msg}\n`);
    }
    process.exit(2);
  });

try {
  await cli.parseAsync();
} catch (err) {
  if (err instanceof HexaError) {
    process.stderr.write(`hexa: ${err.message}\n`);
    process.exit(2);
  }
  throw err;
}
