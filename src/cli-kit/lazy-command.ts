import type { Argv, CommandModule } from "yargs";
import type { FamilyCommand } from "../family/registry.ts";

/** What yargs needs of a command before it runs: its command string (name, positionals) and one-line description. */
export interface CommandStub {
  command: string;
  describe: string;
}

/** A command whose module is imported when the command is parsed; `load` gives the module, `stub` what help lists. */
export interface LazyCommand extends CommandModule {
  stub: CommandStub;
  load: () => Promise<CommandModule>;
}

/**
 * A command that costs nothing at start-up: `hexa --help` lists it from its stub, and its module (the builder,
 * the handler and everything they import) is loaded only when the command is named. `prepare` runs first
 * (e.g. loading the level families the builder reads). The stub must repeat the module's command and describe:
 * lazy-command.test.ts checks every command's.
 */
export const lazyCommand = (stub: CommandStub, load: () => Promise<CommandModule>, prepare?: () => Promise<void>): LazyCommand => ({
  ...stub,
  stub,
  load,
  builder: async (y: Argv) => {
    const [c] = await Promise.all([load(), prepare?.()]);
    if (typeof c.builder === "function") return c.builder(y);
    return c.builder ? y.options(c.builder) : y;
  },
  handler: async (argv) => {
    await (await load()).handler(argv);
  },
});

/** A family's command (src/family/registry.ts) as yargs takes it: every one is made by `lazyCommand` or `defineCommand`. */
export const asYargsCommand = (c: FamilyCommand): CommandModule => c as CommandModule;
