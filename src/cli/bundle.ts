import type { Argv } from "yargs";
import type { AppContext } from "../app/context.ts";
import { type ArgsOf, defineCommand } from "../cli-kit/define-command.ts";

const bundleFlags = (y: Argv) =>
  y
    .positional("run", { type: "string", demandOption: true, describe: "a run directory (runs/<id>), a hexa compare directory or a hexa search directory" })
    .option("out", { alias: "o", type: "string", demandOption: true, describe: "the bundle to write, e.g. my-run.tar.gz" })
    .option("force", { type: "boolean", default: false, describe: "replace the -o file if it exists" })
    .option("with-policies", { type: "boolean", default: false, describe: "also pack the trained policy files (large); their results are packed either way" })
    .option("config", {
      type: "string",
      describe: "the config file the run was started from, packed as given (checked to resolve to the run's config; secrets removed)",
    });

/** The flags `hexa bundle` reads (src/cli/bundle-pack.ts). */
export type BundleArgs = ArgsOf<typeof bundleFlags>;

export const bundleCommand = (ctx: AppContext) =>
  defineCommand({
    command: "bundle <run>",
    describe: "pack a run with everything that made it (config, code version, model exchanges, records) and a MANIFEST of sha256s into one .tar.gz",
    builder: bundleFlags,
    // The packing modules are loaded only here: `hexa bundle --help` starts fast.
    handler: async (argv) => (await import("./bundle-pack.ts")).bundleRun(ctx.families, argv),
  });
