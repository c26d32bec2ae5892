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
 * Work a command needs done first (e.g. loading the level families): before its builder when its flags read
 * what it makes, else only before its handler (and its subcommands' handlers), so that `--help` and a usage
 * error never pay for it.
 */
export interface Preparation {
  before: "builder" | "handler";
  run: () => Promise<void>;
}

/**
 * A command that costs nothing at start-up: `hexa --help` lists it from its stub, and its module (the builder,
 * the handler and everything they import) is loaded only when the command is named. The stub must repeat the
 * module's command and describe: lazy-command.test.ts checks every command's.
 */
export const lazyCommand = (stub: CommandStub, load: () => Promise<CommandModule>, prepare?: Preparation): LazyCommand => ({
  ...stub,
  stub,
  load,
  builder: async (y: Argv) => {
    const [c] = await Promise.all([load(), prepare?.before === "builder" ? prepare.run() : undefined]);
    const built = typeof c.builder === "function" ? await c.builder(y) : c.builder ? y.options(c.builder) : y;
    // yargs runs a command's middleware after parsing and validation, before its handler or a subcommand's.
    return prepare?.before === "handler" ? built.middleware(async () => void (await prepare.run())) : built;
  },
  handler: async (argv) => {
    await (await load()).handler(argv);
  },
});

/** A family's command (src/family/registry.ts) as yargs takes it: every one is made by `lazyCommand` or `defineCommand`. */
export const asYargsCommand = (c: FamilyCommand): CommandModule => c as CommandModule;
