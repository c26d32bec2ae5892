import { defineCommand } from "../../../src/cli-kit/define-command.ts";
import { parseSeed } from "../../../src/family/seed.ts";
import { getTool, listTools, tools } from "../tools/index.ts";
import { ConfigError } from "../../../src/errors.ts";
import { engineOf, engineOption } from "./engine-flag.ts";

const parseArgs = (raw: string | undefined): unknown => {
  if (raw === undefined || raw.trim() === "") return {};
  try {
    return JSON.parse(raw);
  } catch (e) {
    throw new ConfigError(`tool arguments must be a JSON object, e.g. '{"x": 0, "y": 3, "radius": 0.5}' (got ${raw}: ${(e as Error).message})`);
  }
};

/** Calls one tool as the actor would and prints what it would see: how a person explores the agent's view. */
export const toolCommand = defineCommand({
  command: "tool <level> <name> [args]",
  describe: "call one actor tool on a level and print its observation (--json: the structured result)",
  builder: (y) =>
    y
      .positional("level", { type: "string", demandOption: true })
      .positional("name", { type: "string", demandOption: true, describe: `one of: ${listTools().join(", ")}` })
      .positional("args", { type: "string", describe: "JSON object of arguments" })
      .option("seed", { type: "string", demandOption: true, describe: "level seed (non-negative integer)" })
      .option("horizon", { type: "number", default: 2000, describe: "episode horizon in steps" })
      .option("engine", engineOption)
      .option("json", { type: "boolean", default: false, describe: "print the structured result as JSON" }),
  handler: async (argv) => {
    // The level and the physics are loaded only here: `hexa tool --help` starts fast.
    const [{ getLevel }, { createInstance }, { callInterphyreTool, InterphyreSession }] = await Promise.all([
      import("../levels/index.ts"),
      import("../instance.ts"),
      import("../tools/interphyre-tool.ts"),
    ]);
    const level = getLevel(argv.level).id;
    const seed = parseSeed(argv.seed, "--seed");
    const horizon = argv.horizon;
    if (!Number.isSafeInteger(horizon) || horizon < 1) throw new ConfigError(`--horizon must be a positive integer (got ${argv.horizon})`);
    getTool(argv.name);
    const session = new InterphyreSession(createInstance(level, seed), horizon, await engineOf(argv.engine));
    const outcome = callInterphyreTool(Object.values(tools), session, argv.name, parseArgs(argv.args));
    if (argv.json) process.stdout.write(`${JSON.stringify(outcome.ok ? outcome.result : { error: outcome.error }, null, 2)}\n`);
    else process.stdout.write(`${outcome.observation}\n`);
    if (!outcome.ok) process.exitCode = 1;
  },
});
