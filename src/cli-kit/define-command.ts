import type { ArgumentsCamelCase, Argv, CommandModule, Options } from "yargs";

/** A command whose handler reads argv typed by the flags its builder declares: each flag is described once, and read without casts. */
export interface TypedCommand<A> {
  command: string;
  describe: string;
  builder: (y: Argv) => Argv<A>;
  handler: (argv: ArgumentsCamelCase<A>) => void | Promise<void>;
}

/** A typed command as the plain CommandModule that yargs and the family registry take. */
export const defineCommand = <A>(c: TypedCommand<A>): CommandModule => c as unknown as CommandModule;

/** The typed argv a builder produces, for the functions a handler passes it to. */
export type ArgsOf<B extends (y: Argv) => Argv<unknown>> = ArgumentsCamelCase<ReturnType<B> extends Argv<infer A> ? A : never>;

/** Options made at run time (a family's config fields, a schema's knobs), read by name (argv[flag]): the builder's typed flags stay as they are. */
export const withOptionsByName = <T>(y: Argv<T>, options: Record<string, Options>): Argv<T> => y.options(options) as Argv<T>;
