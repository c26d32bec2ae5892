import type { Argv } from "yargs";
import type { FamilyRegistry } from "../app/families.ts";
import type { AppContext } from "../app/context.ts";
import { ConfigError } from "../errors.ts";
import { defineCommand } from "../cli-kit/define-command.ts";
import { asUserError } from "../cli-kit/write-file.ts";
import { budgetOptions, DOCTOR_OPTION } from "./guard-flags.ts";
import { hexaCommand } from "../util/hexa-command.ts";

/** The resolved config (every default) as --print-config prints it: a resume's, the file's, or the defaults with a placeholder level. */
const printedConfig = async (
  families: FamilyRegistry,
  resumeDir: string | undefined,
  configPath: string | undefined,
  note: (line: string) => void,
): Promise<string> => {
  const [{ parseRunConfig, runConfigYaml }, { RunDir }, { readRunConfig, runDirConfig }] = await Promise.all([
    import("../loop/run-config.ts"),
    import("../store/run-dir.ts"),
    import("../app/run-setup.ts"),
  ]);
  // Printed as a resume would read it: parsed and checked, never the file's raw text.
  const cfg = resumeDir
    ? runDirConfig(families, RunDir.open(resumeDir), `${resumeDir}/config.yaml`, note)
    : configPath
      ? readRunConfig(families, configPath)
      : undefined;
  if (cfg) return runConfigYaml(cfg, families.all());
  const defaults = parseRunConfig({ levels: ["<level>"] }, "defaults", families.all());
  return `# every key and its default; levels has none (name one or more: hexa levels list)\n${runConfigYaml(defaults, families.all())}`;
};

const runFlags = (y: Argv) =>
  budgetOptions(y, "this run; a resume may raise it")
    .positional("config", { type: "string", describe: "a YAML run config, e.g. configs/quickstart.yaml" })
    .option("print-config", { type: "boolean", default: false, describe: "print the resolved config (every default) and exit" })
    .option("resume", { type: "string", describe: "continue the run in this directory after a crash or interrupt" })
    .option("runs-dir", { type: "string", default: "runs", describe: "where new run directories are made" })
    .option("backend", {
      type: "string",
      describe: "where episodes are played: local, or redis://HOST:PORT for hexa worker processes (overrides backend:; not recorded in config.yaml)",
    })
    .option("doctor", DOCTOR_OPTION);

export const runCommand = (ctx: AppContext) =>
  defineCommand({
    command: "run [config]",
    describe: "run rounds on a level family with an evolving skill bank; writes runs/<id>/",
    builder: runFlags,
    handler: async (argv) => {
      const configPath = argv.config;
      const resumeDir = argv.resume;
      if (resumeDir !== undefined && resumeDir.trim() === "")
        throw new ConfigError(`--resume needs a run directory, e.g. ${hexaCommand("run --resume runs/<id>")}`);
      if (configPath && resumeDir) throw new ConfigError("give a config or --resume DIR, not both (a resumed run keeps its own config.yaml)");
      const note = (line: string) => process.stderr.write(`${line}\n`);
      if (argv["print-config"]) {
        process.stdout.write(await printedConfig(ctx.families, resumeDir, configPath, note));
        return;
      }
      if (!configPath && !resumeDir) throw new ConfigError(`name a config (e.g. ${hexaCommand("run configs/quickstart.yaml")}) or --resume runs/<id>`);
      let made: string | undefined;
      // The run's modules (stores, models, the loop) are loaded only here: `hexa run --help` starts fast.
      const { runSession } = await import("../app/run-session.ts");
      try {
        await runSession({ configPath, resumeDir, runsDir: argv["runs-dir"], flags: argv, note, madeAt: (path) => (made = path), context: ctx });
      } catch (e) {
        const fix = made
          ? `fix that (space, permissions), then: ${hexaCommand(`run --resume ${made}`)}`
          : "check that the runs folder (--runs-dir) exists, is writable and has space";
        throw asUserError(e, fix);
      }
    },
  });
