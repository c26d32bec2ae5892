import type { CommandModule } from "yargs";
import type { AppContext } from "../app/context.ts";
import { type CommandStub, type LazyCommand, lazyCommand } from "../cli-kit/lazy-command.ts";

/** The generic commands that read the level families: they are built before the handler runs (`--help` never builds them). */
const familyReadingCommands = (ctx: AppContext): LazyCommand[] => {
  const withFamilies = (stub: CommandStub, load: () => Promise<CommandModule>): LazyCommand =>
    lazyCommand(stub, load, { before: "handler", run: () => ctx.families.load() });
  return [
    withFamilies({ command: "run [config]", describe: "run rounds on a level family with an evolving skill bank; writes runs/<id>/" }, async () =>
      (await import("./run.ts")).runCommand(ctx),
    ),
    withFamilies(
      {
        command: "eval <run>",
        describe:
          "held-out evaluation: the run's final bank on seeds it never learned from; writes runs/<id>/eval/<time>.jsonl. Endpoints, trainer command and paths come from you (environment, defaults), not from the run's config.yaml, unless --trust-run-config",
      },
      async () => (await import("./eval.ts")).evalCommand(ctx),
    ),
    withFamilies(
      {
        command: "compare <config>",
        describe: "a grid of configurations x runs on paired seeds, held-out evaluation and paired bootstrap statistics; writes DIR/results.*",
      },
      async () => (await import("./compare.ts")).compareCommand(ctx),
    ),
    withFamilies(
      {
        command: "verify <dir>",
        describe:
          "re-execute a recorded run offline (models answered from its llm-log.jsonl, trainings from its recorded results) and say identical or where it diverged; no endpoint, command, server or path named in the run's files is used (docs/security.md)",
      },
      async () => (await import("./verify.ts")).verifyCommand(ctx),
    ),
    withFamilies(
      {
        command: "doctor [config]",
        describe: "pre-flight check of each role's endpoint: tool calls, structured output, usage, reasoning, context, parallel requests",
      },
      async () => (await import("./doctor.ts")).doctorCommand(ctx),
    ),
    withFamilies({ command: "bank", describe: "a run's skill bank (show, history) and the cross-run skill index (reindex, query)" }, async () =>
      (await import("./bank.ts")).bankCommand(ctx),
    ),
    withFamilies(
      {
        command: "inspect <dir>",
        describe:
          "a self-contained HTML report of a run or a comparison (learning curves, the bank over time, every episode) and of searches (the lineage of every candidate); --serve follows a live run",
      },
      async () => (await import("./inspect.ts")).inspectCommand(ctx),
    ),
    withFamilies(
      {
        command: "bundle <run>",
        describe: "pack a run with everything that made it (config, code version, model exchanges, records) and a MANIFEST of sha256s into one .tar.gz",
      },
      async () => (await import("./bundle.ts")).bundleCommand(ctx),
    ),
    withFamilies(
      {
        command: "transfer",
        describe:
          "zero-shot transfer (docs/spec/method.md section 6): synthesise a bank for --to from source banks, audit it, evaluate it frozen beside a baseline",
      },
      async () => (await import("./transfer-command.ts")).transferCommand(ctx),
    ),
  ];
};

/** hexa's generic commands over `ctx`, each loaded only when named (the families add theirs through the registry). */
export const genericCommands = (ctx: AppContext): readonly LazyCommand[] => [
  lazyCommand(
    { command: "levels", describe: "the levels of each family: list them, and each family's own level commands (certify, show, check-scenes ...)" },
    async () => (await import("./levels.ts")).levelsCommand(ctx),
  ),
  // Its flags are the families' config fields: they are built before its builder.
  lazyCommand(
    { command: "episode <level>", describe: "run one episode with an agent and show it turn by turn" },
    async () => (await import("./episode.ts")).episodeCommand(ctx),
    { before: "builder", run: () => ctx.families.load() },
  ),
  ...familyReadingCommands(ctx),
  // hexa worker serves the families' queues before it builds them (its handler loads them).
  lazyCommand(
    {
      command: "worker",
      describe: "take episode and training jobs from Redis and run them for hexa run/compare --backend (start one per machine)",
    },
    async () => (await import("./worker.ts")).workerCommand(ctx),
  ),
  lazyCommand({ command: "workers", describe: "list the hexa workers on a Redis: their jobs in flight and throughput" }, async () =>
    (await import("./workers.ts")).workersCommand(ctx),
  ),
];
