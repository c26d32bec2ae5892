import { basename, extname, join, resolve } from "node:path";
import type { AppContext } from "../app/context.ts";
import type { Argv } from "yargs";
import { defineCommand } from "../cli-kit/define-command.ts";
import { intFlag } from "../cli-kit/flags.ts";
import { asUserError } from "../cli-kit/write-file.ts";
import { budgetOptions, DOCTOR_OPTION } from "./guard-flags.ts";

/**
 * `hexa compare` (docs/spec/method.md §8): a grid of configurations x runs, each (cell, run) an ordinary run directory under
 * DIR/runs/ made by a `hexa run` child process (isolation; --resume after a crash), then `hexa eval` on one
 * shared held-out seed list, then the paired statistics. Rerunning the same command continues where it stopped.
 */

const compareFlags = (y: Argv) =>
  budgetOptions(y, "the whole grid, every run and its held-out evaluation together; a rerun may raise it")
    .positional("config", { type: "string", demandOption: true, describe: "the base run config, e.g. configs/quickstart.yaml" })
    .option("grid", { type: "string", array: true, describe: "KEY=V1,V2 over a dotted config key (repeat for more axes), e.g. --grid init=off2on,online" })
    .option("runs", { type: "string", default: 3, coerce: intFlag("runs", 1, 100), describe: "runs per cell; they differ only in the run seed (0, 1, 2, …)" })
    .option("out", { type: "string", describe: "the comparison folder (default compare/<config name>); rerun with the same one to continue" })
    .option("heldout", {
      type: "string",
      default: 20,
      coerce: intFlag("heldout", 0, 10_000),
      describe: "held-out seeds per level for each run's frozen final bank (0: none)",
    })
    .option("baseline", {
      type: "string",
      describe: "the cell the others are compared with: its id (c1, c2, …) or its values (init=online,retriever.topSkills=0); default the first",
    })
    .option("parallel", { type: "string", default: 1, coerce: intFlag("parallel", 1, 64), describe: "runs played at once (each a hexa run process)" })
    .option("backend", {
      type: "string",
      describe: "where the runs' episodes are played: local, or redis://HOST:PORT for hexa worker processes (raise --parallel to keep them busy)",
    })
    .option("doctor", DOCTOR_OPTION);
export const compareCommand = (ctx: AppContext) =>
  defineCommand({
    command: "compare <config>",
    describe: "a grid of configurations x runs on paired seeds, held-out evaluation and paired bootstrap statistics; writes DIR/results.*",
    builder: compareFlags,
    handler: async (argv) => {
      const out = resolve(argv.out ?? join("compare", basename(argv.config, extname(argv.config))));
      // The grid's modules (stores, reports, child processes) are loaded only here: `hexa compare --help` starts fast.
      const { compare } = await import("../app/compare-play.ts");
      try {
        await compare(ctx.families, argv, out);
      } catch (e) {
        throw asUserError(e, `check that ${out} is a writable folder with space, then rerun the same command to continue`);
      }
    },
  });
