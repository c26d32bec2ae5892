import { hideBin } from "yargs/helpers";
import { HexaError, RunStopped } from "../errors.ts";
import { closeFamilies, loadPluginFamilies } from "../app/families.ts";
import { hexaCli } from "./hexa-cli.ts";
import { appHost } from "../app/host.ts";
import { provideFamilyHost } from "../family/host.ts";
import { terminalText } from "../util/terminal-text.ts";

// `hexa levels list | head` closes the pipe early; that is not an error.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(0);
  throw e;
});

provideFamilyHost(appHost);

await loadPluginFamilies().catch((e: unknown) => {
  if (!(e instanceof HexaError)) throw e;
  process.stderr.write(`hexa: ${terminalText(e.message)}\n`);
  process.exit(2);
});

const cli = hexaCli(hideBin(process.argv)).fail((msg, err, y) => {
  // yargs re-throws an error from an option's `coerce` as a YError carrying the same message.
  if (err instanceof HexaError || err?.name === "YError") {
    process.stderr.write(`hexa: ${terminalText(err.message)}\n`);
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
    process.stderr.write(`hexa: ${terminalText(err.message)}\n`);
    await closeFamilies();
    process.exit(err instanceof RunStopped ? 3 : 2);
  }
  throw err;
}
