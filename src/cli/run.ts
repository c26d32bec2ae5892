import { resolve } from "node:path";
import type { Argv, CommandModule } from "yargs";
import { ConfigError } from "../errors.ts";
import type { Metrics } from "../loop/metrics.ts";
import { RunConfig, parseRunConfigYaml, runConfigYaml, usesBank, type RunConfig as RunConfigT } from "../loop/run-config.ts";
import { runLoop } from "../loop/run-loop.ts";
import { schedule } from "../loop/schedule.ts";
import type { BankEvent } from "../store/bank.ts";
import { readOfflineTrajectories } from "../store/offline-trajectories.ts";
import { RunDir } from "../store/run-dir.ts";
import { readShippedBanks } from "../store/shipped-bank.ts";
import { percent } from "./format.ts";
import { progressView } from "./progress.ts";
import { familyOf, modelsFor, openSkillIndex, readRunConfig, type OpenIndex } from "./run-setup.ts";

const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");

/** Run ids read level__method__seed__timestamp (style.md §15). */
export const runIdOf = (c: RunConfigT, now: Date): string => {
  const levels = c.name ?? (c.levels.length <= 3 ? c.levels.join("+") : `${c.levels.length}-levels`);
  const method = usesBank(c) ? `${c.agent}-${c.init}-${c.update}${c.evolver === "heuristic" ? "-heuristic-evolver" : ""}${c.bank.rewardLabels ? "" : "-no-reward"}` : c.agent;
  return `${levels}__${method}__s${c.seed}__${stamp(now)}`;
};


const printSummary = (m: Metrics, dir: string) => {
  const out = process.stdout;
  const label = m.agent.startsWith("heuristic") ? " — heuristic experimentalist, no LLM" : "";
  out.write(`\nrun ${m.run}${label}\n`);
  out.write(`${"level".padEnd(22)} ${"success".padStart(12)} ${"turns".padStart(6)} ${"skills".padStart(7)} ${"mistakes".padStart(9)}   (final bank)\n`);
  for (const [level, l] of Object.entries(m.levels)) {
    out.write(`${level.padEnd(22)} ${`${l.successes}/${l.episodes} ${percent(l.successes, l.episodes)}`.padStart(12)} ${l.meanTurns.toFixed(1).padStart(6)} ${String(l.finalBank.skills).padStart(7)} ${String(l.finalBank.mistakes).padStart(9)}\n`);
  }
  const u = m.usage.total;
  out.write(`tokens ${u.input + u.output} (${u.calls} calls), cost $${u.costUsd.toFixed(4)}${u.unpricedCalls ? ` + ${u.unpricedCalls} unpriced calls` : ""}; time: simulation ${(m.time.simulationMs / 1000).toFixed(1)} s, agent ${(m.time.agentMs / 1000).toFixed(1)} s, bank ${(m.time.bankMs / 1000).toFixed(1)} s\n`);
  out.write(`run directory: ${dir}\nheld-out check: hexa eval ${dir}\n`);
};

/** The defaults with a placeholder level, for --print-config without a file. */
const defaultsYaml = () => `# every key and its default; levels has none (name one or more, e.g. [catapult])\n${runConfigYaml(RunConfig.parse({ levels: ["<level>"] }))}`;

export const runCommand: CommandModule = {
  command: "run [config]",
  describe: "run rounds on a level family with an evolving skill bank; writes runs/<id>/",
  builder: (y: Argv) =>
    y
      .positional("config", { type: "string", describe: "a YAML run config, e.g. configs/quickstart.yaml" })
      .option("print-config", { type: "boolean", default: false, describe: "print the resolved config (every default) and exit" })
      .option("resume", { type: "string", describe: "continue the run in this directory after a crash or interrupt" })
      .option("runs-dir", { type: "string", default: "runs", describe: "where new run directories are made" }),
  handler: async (argv) => {
    const configPath = argv.config as string | undefined;
    const resumeDir = argv.resume as string | undefined;
    if (configPath && resumeDir) throw new ConfigError("give a config or --resume DIR, not both (a resumed run keeps its own config.yaml)");
    if (argv["print-config"]) {
      process.stdout.write(resumeDir ? RunDir.open(resumeDir).configText() : configPath ? runConfigYaml(readRunConfig(configPath)) : defaultsYaml());
      return;
    }
    if (!configPath && !resumeDir) throw new ConfigError("name a config (e.g. hexa run configs/quickstart.yaml) or --resume runs/<id>");

    // Everything that can be refused is checked before a run directory is made.
    const existing = resumeDir ? RunDir.open(resumeDir) : undefined;
    const cfg: RunConfigT = existing ? parseRunConfigYaml(existing.configText(), `${resumeDir}/config.yaml`) : readRunConfig(configPath!);
    const family = familyOf(cfg);
    const where = resumeDir ? `${resumeDir}/config.yaml` : configPath!;
    try {
      schedule(cfg, family);
    } catch (e) {
      throw e instanceof ConfigError ? new ConfigError(`${where}: ${e.message}`) : e;
    }
    const fromFiles = usesBank(cfg) && cfg.init !== "online";
    const once = <T>(read: () => T) => {
      let value: T | undefined;
      return () => (value ??= read());
    };
    const trajectories = cfg.offline.trajectories;
    const banks = cfg.offline.banks;
    const offline = fromFiles && trajectories ? once(() => readOfflineTrajectories(trajectories)) : undefined;
    const shipped = fromFiles && banks ? once(() => readShippedBanks(banks)) : undefined;
    // A new run reads its input files now, so a bad one is refused before the directory exists; a resume reads
    // them only if round 0 is unfinished (afterwards the run holds what it took from them).
    if (!existing) {
      offline?.();
      shipped?.();
    }
    const now = new Date();
    const runsDir = String(argv["runs-dir"]);
    const id = existing?.meta.id ?? runIdOf(cfg, now);
    const models = await modelsFor(cfg, existing?.path ?? resolve(runsDir, id), { resuming: existing !== undefined });
    // A Chroma that does not answer is refused before the directory exists, so no half-made run is left behind.
    const index: OpenIndex | undefined = cfg.skillIndex.enabled ? await openSkillIndex(cfg.skillIndex.dataDir, cfg.skillIndex.embedding) : undefined;
    let dir: RunDir;
    let release: () => void;
    try {
      dir = existing ?? RunDir.create(runsDir, id, runConfigYaml(cfg), now);
      release = dir.lock();
    } catch (e) {
      await index?.stop();
      throw e;
    }
    const view = progressView(process.stderr, () => performance.now());
    const onSignal = () => {
      view.stop();
      release();
      process.stderr.write(`\ninterrupted; nothing finished is lost. Continue with: hexa run --resume ${dir.path}\n`);
      void index?.stop().finally(() => process.exit(130));
      if (!index) process.exit(130);
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    try {
      view.line(`${resumeDir ? "resuming" : "run"} ${dir.path}${cfg.agent === "heuristic" ? " (heuristic experimentalist, no LLM)" : ""}`);
      const metrics = await runLoop(cfg, {
        family,
        dir,
        ...models,
        ...(shipped ? { shippedBank: (level: string) => shipped().get(level) } : {}),
        ...(offline ? { offlineTrajectories: (level: string) => offline().get(level) ?? [] } : {}),
        now: () => performance.now(),
        onProgress: (p) => view.update(p),
        log: (line) => view.line(line),
        ...(index
          ? {
              // The last round's refresh marks the run final (a resumed run passes through every round again).
              afterRound: async (round: number, events: ReadonlyMap<string, readonly BankEvent[]>) => {
                const status = round === cfg.rounds ? "final" : "running";
                await index.index.rebuildFromEvents(cfg.levels.map((level) => ({ level, run: dir.meta.id, status, events: events.get(level) ?? [] })));
              },
            }
          : {}),
      });
      view.stop();
      printSummary(metrics, resolve(dir.path));
    } finally {
      view.stop();
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      await index?.stop();
      release();
    }
  },
};
