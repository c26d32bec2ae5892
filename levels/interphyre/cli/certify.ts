import { positiveIntFlag } from "../../../src/cli-kit/flags.ts";
import { availableParallelism } from "node:os";
import { defineCommand } from "../../../src/cli-kit/define-command.ts";
import { DEFAULT_BUDGET } from "../certify-budget.ts";
import { engineOption } from "./engine-flag.ts";
import { EngineName } from "../world/engines.ts";

export const certifyCommand = defineCommand({
  command: "certify <level>",
  describe: "find certified seeds by oracle search (resumes where it stopped); <level> may be 'all'",
  builder: (y) =>
    y
      .positional("level", { type: "string", demandOption: true })
      .option("seeds", { type: "number", default: 120, coerce: positiveIntFlag("seeds"), describe: "certified seeds wanted" })
      .option("workers", {
        type: "number",
        default: availableParallelism(),
        defaultDescription: "one per core",
        coerce: positiveIntFlag("workers"),
        describe: "parallel processes",
      })
      .option("random", { type: "number", default: DEFAULT_BUDGET.random, describe: "random placements per seed" })
      .option("refine", { type: "number", default: DEFAULT_BUDGET.refine, describe: "refinements per seed" })
      .option("engine", engineOption)
      .option("dir", { type: "string", describe: "where the certified files live (default: levels/interphyre/certified)" })
      .option("quiet", { type: "boolean", default: false }),
  handler: async (argv) => {
    // The levels and the search are loaded only here: `hexa levels certify --help` starts fast.
    const [{ getLevel, listLevels }, { runCertification }] = await Promise.all([import("../levels/index.ts"), import("./certify-runner.ts")]);
    const level = argv.level;
    const ids = level === "all" ? listLevels() : [getLevel(level).id];
    const budget = { ...DEFAULT_BUDGET, random: argv.random, refine: argv.refine };
    for (const id of ids) {
      const data = await runCertification({
        level: id,
        target: argv.seeds,
        budget,
        engine: EngineName.parse(argv.engine),
        workers: argv.workers,
        ...(argv.dir ? { dir: argv.dir } : {}),
        progress: (line) => {
          if (!argv.quiet) process.stderr.write(`\r\x1b[K${line}`);
        },
      });
      process.stderr.write(`\r\x1b[K`);
      process.stdout.write(`${id}: ${data.seeds.length} certified, ${data.rejected.length} rejected\n`);
    }
  },
});
