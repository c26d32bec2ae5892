import type { Argv } from "yargs";
import type { AppContext } from "../app/context.ts";
import { PROMPT_ENTRY_LIMIT } from "../../agents/synthesiser-select.ts";
import { type ArgsOf, defineCommand } from "../cli-kit/define-command.ts";
import { intFlag } from "../cli-kit/flags.ts";

const transferFlags = (defaultFamily: string) => (y: Argv) =>
  y
    .option("from", {
      type: "string",
      array: true,
      demandOption: true,
      describe:
        "a source: LEVEL (its shipped bank), LEVEL=runs/<id> or LEVEL=BANK.json; repeat for several (of a run only its levels and bank are read: no endpoint, command or path its config names is used)",
    })
    .option("to", { type: "string", demandOption: true, describe: "the target level (no trajectories of it are used)" })
    .option("family", { type: "string", default: defaultFamily, describe: "the level family of every level named" })
    .option("synthesiser", {
      choices: ["llm", "heuristic"] as const,
      default: "llm" as const,
      describe: "llm: the llm.synthesiser model; heuristic: the family's rule-based mapping (no LLM)",
    })
    .option("config", { type: "string", describe: "a run config YAML whose llm (synthesiser, actor), actor, retriever and family settings are used" })
    .option("eval-seeds", {
      type: "string",
      default: 20,
      coerce: intFlag("eval-seeds", 0, 10_000),
      describe: "target seeds the frozen bank and the baseline play (0: write the bank only)",
    })
    .option("seed-offset", {
      type: "string",
      default: 60,
      coerce: intFlag("seed-offset", 0, 100_000),
      describe: "the evaluation takes the target's vetted seeds from this index on",
    })
    .option("baseline", {
      choices: ["react", "heuristic"] as const,
      describe: "the agent without a bank on the same seeds (default: react with --synthesiser llm, else heuristic)",
    })
    .option("agent", {
      choices: ["hexa", "heuristic"] as const,
      describe: "the agent that plays with the bank (default: hexa with --synthesiser llm, else heuristic)",
    })
    .option("prompt-entries", {
      type: "string",
      default: PROMPT_ENTRY_LIMIT,
      coerce: intFlag("prompt-entries", 1, 10_000),
      describe: "more source entries than this: Chroma picks the most relevant",
    })
    .option("out", {
      type: "string",
      describe: "the bank file to write (default runs/transfer/<target>__from_<sources>__<synthesiser>__<time>/bank.json); the evaluation runs go beside it",
    });

/** The flags `hexa transfer` reads (src/cli/transfer.ts). */
export type TransferArgs = ArgsOf<ReturnType<typeof transferFlags>>;

/** `hexa transfer` (docs/spec/method.md §6); its work, in src/cli/transfer.ts, is loaded only when it runs: `--help` starts fast. */
export const transferCommand = (ctx: AppContext) =>
  defineCommand({
    command: "transfer",
    describe:
      "zero-shot transfer (docs/spec/method.md section 6): synthesise a bank for --to from source banks, audit it, evaluate it frozen beside a baseline",
    builder: transferFlags(ctx.families.defaultId()),
    handler: async (argv) => (await import("./transfer.ts")).transfer(ctx.families, argv, ctx.embedded),
  });
