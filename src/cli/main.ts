import { hideBin } from "yargs/helpers";
import type { Argv } from "yargs";
import { HexaError, RunStopped } from "../errors.ts";
import { hexaCli } from "./hexa-cli.ts";
import { type AppContext, createAppContext } from "../app/context.ts";
import { terminalText } from "../util/terminal-text.ts";
import { errorLine, type UsageContext, usageErrorText } from "../cli-kit/usage-error.ts";
import { LAUNCHER_ENV } from "../util/hexa-command.ts";
import { launcherOf } from "./invocation.ts";

// `hexa levels list | head` closes the pipe early; that is not an error.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(0);
  throw e;
});

const launcher = launcherOf({ script: process.argv[1], env: process.env, cwd: process.cwd() });
// What hexaCommand prints (src/util/hexa-command.ts); the hexa processes a command starts (hexa compare's runs) print
// the user's launcher too, not their own node command.
process.env[LAUNCHER_ENV] = launcher;
const colour = process.stderr.hasColors?.() ?? false;

const ctx: AppContext = await createAppContext().catch((e: unknown) => {
  if (!(e instanceof HexaError)) throw e;
  process.stderr.write(`${errorLine(terminalText(e.message), colour)}\n`);
  process.exit(2);
});

/** The part of yargs' instance that says where parsing stopped (internal in its types, stable across yargs 17–18). */
interface YargsWhere {
  getOptions(): { key: Record<string, unknown> };
  getInternalMethods(): { getContext(): { commands: string[] }; getCommandInstance(): { getCommands(): string[] } };
}

/** The command path, flags and subcommands at the point yargs refused the input. */
const usageContext = (y: Argv): UsageContext => {
  const where = y as unknown as YargsWhere;
  const internal = where.getInternalMethods();
  return { path: internal.getContext().commands, flags: Object.keys(where.getOptions().key), commands: internal.getCommandInstance().getCommands() };
};

/** The context, or none (no suggestion, help at the top) should a yargs release change its internals. */
const usageContextOrNone = (y: Argv): UsageContext => {
  try {
    return usageContext(y);
  } catch {
    return { path: [], flags: [], commands: [] };
  }
};

const cli = hexaCli(ctx, hideBin(process.argv));
cli.fail((msg, err) => {
  // yargs re-throws an error from an option's `coerce` as a YError carrying the same message.
  if (err instanceof HexaError || err?.name === "YError") {
    process.stderr.write(`${errorLine(terminalText(err.message), colour)}\n`);
  } else if (err) {
    throw err;
  } else {
    process.stderr.write(usageErrorText(msg, usageContextOrNone(cli), launcher, colour));
  }
  process.exit(err instanceof RunStopped ? 3 : 2);
});

try {
  await cli.parseAsync();
  // Trainer processes and workers a family started; they also exit on their own when stdin closes.
  await ctx.families.close();
  await ctx.embedded.close();
} catch (err) {
  // A lazy command's coerce error reaches here as yargs' YError, past .fail(): the same user error.
  if (err instanceof HexaError || (err instanceof Error && err.name === "YError")) {
    process.stderr.write(`${errorLine(terminalText(err.message), colour)}\n`);
    await ctx.families.close();
    process.exit(err instanceof RunStopped ? 3 : 2);
  }
  throw err;
}
