import yargs, { type Argv } from "yargs";
import type { AppContext } from "../app/context.ts";
import { genericCommands } from "./commands.ts";
import { asYargsCommand } from "../cli-kit/lazy-command.ts";

/**
 * hexa's command tree over the run context `ctx` as one yargs instance over `args`: the generic commands, then each family's own (hexa play,
 * hexa trainer …) from the registry. main.ts adds how errors end the process; docs/reference/cli.md is generated
 * from the same tree (scripts/gen-reference.ts).
 */
export const hexaCli = (ctx: AppContext, args: readonly string[]): Argv => {
  // Every command is lazy (src/cli-kit/lazy-command.ts): only the one named is loaded, with what it imports.
  const generic = genericCommands(ctx).reduce(
    (y, c) => y.command(c),
    yargs([...args])
      .scriptName("hexa")
      .usage("$0 <command>\n\nExperimentalist agents on level families (hexa levels list): physics puzzles and reward-function search."),
  );
  return ctx.families
    .modules()
    .flatMap((m) => m.commands ?? [])
    .reduce((y, c) => y.command(asYargsCommand(c)), generic)
    .demandCommand(1, "name a command")
    .strict()
    .help();
};
