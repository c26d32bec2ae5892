import type { Argv, CommandModule } from "yargs";
import type { AppContext } from "../app/context.ts";
import { DEFAULT_SKILL_INDEX_DIR } from "../store/skill-index-dir.ts";
import { type ArgsOf, defineCommand } from "../cli-kit/define-command.ts";
import { intFlag } from "../cli-kit/flags.ts";
import { TRUST_RUN_CONFIG_OPTION } from "./trust-flag.ts";

/**
 * `hexa bank`: read a run's skill bank (show, history) and the cross-run Chroma index (reindex, query).
 * These commands only read a run (`repair: false`): a live run may be writing its files, so a torn last line
 * is skipped here, never cut off as it is on resume.
 */

const showFlags = (y: Argv) =>
  y
    .positional("run", { type: "string", demandOption: true, describe: "a run directory, e.g. runs/<id>" })
    .option("level", { type: "string", describe: "only this level" })
    .option("round", {
      type: "string",
      describe: "the bank after this round (0: the initial bank)",
      coerce: (v) => (v === undefined ? v : intFlag("round", 0, 10_000)(v)),
    });
export type ShowArgs = ArgsOf<typeof showFlags>;

const show = (ctx: AppContext) =>
  defineCommand({
    command: "show <run>",
    describe: "a run's bank after a round (default: the last committed), skills and mistakes by weight",
    builder: showFlags,
    handler: async (argv) => (await import("./bank-read.ts")).showBank(ctx.families, argv),
  });

const historyFlags = (y: Argv) =>
  y
    .positional("run", { type: "string", demandOption: true, describe: "a run directory, e.g. runs/<id>" })
    .option("level", { type: "string", describe: "only this level" });
export type HistoryArgs = ArgsOf<typeof historyFlags>;

const history = (ctx: AppContext) =>
  defineCommand({
    command: "history <run>",
    describe: "every committed bank event, one a line (round, type, ids, reason): how the skills evolved",
    builder: historyFlags,
    handler: async (argv) => (await import("./bank-read.ts")).bankHistory(ctx.families, argv),
  });

const reindexFlags = (y: Argv) =>
  y
    .positional("runs", { type: "string", array: true, describe: "run directories" })
    .option("runs-dir", { type: "string", default: "runs", describe: "where to look for runs when none is named" })
    .option("data-dir", {
      type: "string",
      describe: `the embedded Chroma server's data directory (default: ${DEFAULT_SKILL_INDEX_DIR}; the runs' skillIndex.dataDir only with --trust-run-config)`,
    })
    .option("trust-run-config", TRUST_RUN_CONFIG_OPTION);
export type ReindexArgs = ArgsOf<typeof reindexFlags>;

const reindex = (ctx: AppContext) =>
  defineCommand({
    command: "reindex [runs..]",
    describe:
      "rebuild the Chroma skill index from the runs' bank-events.jsonl (default: every run under --runs-dir); the index folder and embedding endpoint are yours unless --trust-run-config",
    builder: reindexFlags,
    handler: async (argv) => (await import("./bank-read.ts")).reindexRuns(ctx.families, argv),
  });

const queryFlags = (y: Argv) =>
  y
    .positional("text", { type: "string", demandOption: true })
    .option("level", { type: "string", describe: "only entries learned on this level" })
    .option("kind", { choices: ["skill", "mistake"] as const, describe: "only skills or only mistakes" })
    .option("limit", { type: "string", default: 5, coerce: intFlag("limit", 1, 1000), describe: "hits to print" })
    .option("data-dir", { type: "string", describe: `the embedded Chroma server's data directory (default: ${DEFAULT_SKILL_INDEX_DIR})` });
export type QueryArgs = ArgsOf<typeof queryFlags>;

const query = defineCommand({
  command: "query <text>",
  describe: "the index entries closest to a text, best first (score = cosine similarity)",
  builder: queryFlags,
  handler: async (argv) => (await import("./bank-read.ts")).queryIndex(argv),
});

export const bankCommand = (ctx: AppContext): CommandModule => ({
  command: "bank",
  describe: "a run's skill bank (show, history) and the cross-run skill index (reindex, query)",
  builder: (y: Argv) =>
    y.command(show(ctx)).command(history(ctx)).command(reindex(ctx)).command(query).demandCommand(1, "name a bank subcommand; see hexa bank --help"),
  handler: () => {},
});
