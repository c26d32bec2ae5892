import { readFileSync } from "node:fs";
import { defineCommand } from "../../../src/cli-kit/define-command.ts";
import { intFlag } from "../../../src/cli-kit/flags.ts";
import { EngineName } from "../world/engines.ts";
import { ConfigError } from "../../../src/errors.ts";
import { percent } from "../../../src/cli-kit/format.ts";
import { engineOption } from "./engine-flag.ts";

const readJson = (path: string): unknown => {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new ConfigError(`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${path}: not valid JSON (${(e as Error).message})`);
  }
};

export const checkScenesCommand = defineCommand({
  command: "check-scenes <files..>",
  describe: "simulate the known solutions of Interphyre scene files and report how many reach the goal",
  builder: (y) =>
    y
      .positional("files", { type: "string", array: true, demandOption: true })
      .option("steps", { type: "string", default: 1000, coerce: intFlag("steps", 1, 1_000_000), describe: "steps per rollout" })
      .option("json", { type: "boolean", default: false, describe: "print one JSON object" })
      .option("engine", engineOption),
  handler: async (argv) => {
    // The scenes' checker and the physics workers are loaded only here: `hexa levels check-scenes --help` starts fast.
    const [{ parseSceneFile }, { checkScenesInWorkers }, { closePhysicsHost, physicsHost }] = await Promise.all([
      import("../scene-check.ts"),
      import("../scene-check-pool.ts"),
      import("../physics-host.ts"),
    ]);
    const files = argv.files.map((f) => parseSceneFile(readJson(f), f));
    const steps = argv.steps;
    const tty = process.stderr.isTTY && !argv.json;
    // Spread over the physics workers (one per core; HEXA_PHYSICS_WORKERS): the same report as one thread gives.
    const report = await checkScenesInWorkers(physicsHost(), files, steps, EngineName.parse(argv.engine), (level, done, total) => {
      if (tty) process.stderr.write(`\r\x1b[K${level} ${done}/${total}`);
    }).finally(closePhysicsHost);
    if (tty) process.stderr.write("\r\x1b[K");
    if (argv.json) {
      const levels = Object.fromEntries(Object.entries(report.levels).map(([k, v]) => [k, { total: v.total, reproduced: v.reproduced }]));
      process.stdout.write(`${JSON.stringify({ total: report.total, reproduced: report.reproduced, levels })}\n`);
      return;
    }
    for (const [level, row] of Object.entries(report.levels)) {
      const failed = row.failedSeeds.length ? `  not reproduced: seeds ${row.failedSeeds.join(", ")}` : "";
      process.stdout.write(
        `${level.padEnd(20)} ${String(row.reproduced).padStart(4)}/${String(row.total).padEnd(4)} ${percent(row.reproduced, row.total, 1).padStart(6)}${failed}\n`,
      );
    }
    process.stdout.write(
      `${"total".padEnd(20)} ${String(report.reproduced).padStart(4)}/${String(report.total).padEnd(4)} ${percent(report.reproduced, report.total, 1).padStart(6)}\n`,
    );
  },
});
