import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Argv } from "yargs";
import { ConfigError, HexaError, InvariantError, RunStopped } from "../errors.ts";
import { BudgetExceeded, checkPriced, hasCap, SpendGate, type Budget, type Spend } from "../llm/budget.ts";
import type { SpendLedger } from "../llm/spend-ledger.ts";
import type { RedisLedger } from "../backend/redis/spend-ledger.ts";
import { forecastRun } from "../loop/forecast.ts";
import { budgetFrom, budgetOptions, checkForecast, earlierUsage, seedGate, spentIn, stoppedHint } from "./budget.ts";
import { type ArgsOf, defineCommand } from "../cli-kit/define-command.ts";
import { computeMetrics, type Metrics } from "../loop/metrics.ts";
import { parseRunConfig, runConfigYaml, usesBank, type RunConfig as RunConfigT } from "../loop/run-config.ts";
import type { FamilySearch, LevelFamily, SearchCall } from "../family/family.ts";
import type { AssistantTurn } from "../llm/chat-model.ts";
import { usageLine } from "../loop/episode-backend.ts";
import { runLoop } from "../loop/run-loop.ts";
import type { BankEvent } from "../store/bank.ts";
import { readOfflineTrajectories } from "../store/offline-trajectories.ts";
import { RunDir, updateKey } from "../store/run-dir.ts";
import type { CodeVersion, UsageLine } from "../store/run-records.ts";
import { readShippedBanks } from "../store/shipped-bank.ts";
import { checkRecordedBank } from "../store/bank-check.ts";
import { percent } from "../cli-kit/format.ts";
import { progressView } from "./progress.ts";
import { checkRunConfig } from "./run-check.ts";
import { runIdOf } from "./run-id.ts";
import { writeRunReport } from "./inspect-report.ts";
import { allFamilies } from "../app/families.ts";
import { codeLabel, codeVersion, configDigest, runDirConfig, modelsFor, openSkillIndex, readRunConfig, type OpenIndex } from "./run-setup.ts";
import { asUserError } from "../cli-kit/write-file.ts";
import { scoreRun } from "../report/final-scores-text.ts";
import { openEpisodes, sharedLedger } from "./backend.ts";
import { DOCTOR_OPTION, doctorSkipped, noteServed, preflight, rolesOf } from "./preflight.ts";

const printSummary = (m: Metrics, dir: string) => {
  const out = process.stdout;
  const label = m.agent.startsWith("heuristic") ? " — heuristic experimentalist, no LLM" : "";
  out.write(`\nrun ${m.run}${label}\n`);
  out.write(`${"level".padEnd(22)} ${"success".padStart(12)} ${"turns".padStart(6)} ${"skills".padStart(7)} ${"mistakes".padStart(9)}   (final bank)\n`);
  for (const [level, l] of Object.entries(m.levels)) {
    out.write(
      `${level.padEnd(22)} ${`${l.successes}/${l.episodes} ${percent(l.successes, l.episodes)}`.padStart(12)} ${l.meanTurns.toFixed(1).padStart(6)} ${String(l.finalBank.skills).padStart(7)} ${String(l.finalBank.mistakes).padStart(9)}\n`,
    );
  }
  const u = m.usage.total;
  out.write(
    `tokens ${u.input + u.output} (${u.calls} calls${u.estimatedCalls ? `, ${u.estimatedCalls} estimated: the server reported no usage` : ""}), cost $${u.costUsd.toFixed(4)}${u.unpricedCalls ? ` + ${u.unpricedCalls} unpriced calls` : ""}; time: simulation ${(m.time.simulationMs / 1000).toFixed(1)} s, agent ${(m.time.agentMs / 1000).toFixed(1)} s, bank ${(m.time.bankMs / 1000).toFixed(1)} s\n`,
  );
  for (const p of m.problems ?? []) out.write(`${p.fatal ? "PROBLEM" : "note"}: ${p.message}\n`);
  out.write(`run directory: ${dir}\nheld-out check: hexa eval ${dir}\n`);
};

/**
 * A resume by another hexa is allowed but said loudly, and every writer is kept in writers.jsonl: a fix
 * committed between a crash and its resume is the usual case, and refusing would strand a paid run; the
 * record lets anyone reading the run's numbers see that they come from more than one version.
 */
const warnIfOtherCode = (dir: RunDir, code: CodeVersion, warn: (line: string) => void): void => {
  const earlier = [dir.meta.code, ...dir.writers().map((w) => w.code)].filter((c): c is CodeVersion => c !== undefined);
  const other = earlier.filter((c) => c.version !== code.version || c.commit !== code.commit);
  if (other.length) {
    const labels = [...new Set(other.map(codeLabel))];
    warn(
      `warning: this run was written by hexa ${labels.join(", ")}; this process is hexa ${codeLabel(code)}. The run will mix code versions (each writer is listed in ${dir.file("writers")}); start a new run if its numbers must come from one version`,
    );
  }
};

/** The defaults with a placeholder level, for --print-config without a file. */
const defaultsYaml = () =>
  `# every key and its default; levels has none (name one or more, e.g. [catapult])\n${runConfigYaml(parseRunConfig({ levels: ["<level>"] }, "defaults", allFamilies()), allFamilies())}`;

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
type RunArgs = ArgsOf<typeof runFlags>;

export const runCommand = defineCommand({
  command: "run [config]",
  describe: "run rounds on a level family with an evolving skill bank; writes runs/<id>/",
  builder: runFlags,
  handler: async (argv) => {
    const configPath = argv.config;
    const resumeDir = argv.resume;
    if (resumeDir !== undefined && resumeDir.trim() === "") throw new ConfigError("--resume needs a run directory, e.g. hexa run --resume runs/<id>");
    if (configPath && resumeDir) throw new ConfigError("give a config or --resume DIR, not both (a resumed run keeps its own config.yaml)");
    const note = (line: string) => process.stderr.write(`${line}\n`);
    if (argv["print-config"]) {
      // Printed as a resume would read it: parsed and checked, never the file's raw text.
      const cfg = resumeDir ? runDirConfig(RunDir.open(resumeDir), `${resumeDir}/config.yaml`, note) : configPath ? readRunConfig(configPath) : undefined;
      process.stdout.write(cfg ? runConfigYaml(cfg, allFamilies()) : defaultsYaml());
      return;
    }
    if (!configPath && !resumeDir) throw new ConfigError("name a config (e.g. hexa run configs/quickstart.yaml) or --resume runs/<id>");
    const runsDir = argv["runs-dir"];
    let made: string | undefined;
    try {
      await start(configPath, resumeDir, runsDir, note, (path) => (made = path), argv);
    } catch (e) {
      const fix = made
        ? `fix that (space, permissions), then: hexa run --resume ${made}`
        : "check that the runs folder (--runs-dir) exists, is writable and has space";
      throw asUserError(e, fix);
    }
  },
});

/**
 * The run's spend cap (docs/spec/method.md §11): the forecast is printed before anything is written, a start it says would
 * cross the cap is refused without --yes, and the gate shared by the run's models stops it before the call
 * that would. A resume counts what the run already spent.
 */
const spendGate = (
  cfg: RunConfigT,
  family: LevelFamily,
  search: FamilySearch | undefined,
  existing: RunDir | undefined,
  runsDir: string,
  argv: RunArgs,
  note: (line: string) => void,
  ledgerOf?: (cap: Budget, spent: Spend) => SpendLedger,
): SpendGate | undefined => {
  const cap = budgetFrom(cfg.budget, argv);
  // A search calls only the actor's model (its proposer); the rounds, the actor's and the evolver's.
  const roles = [
    ...(cfg.agent !== "heuristic" ? (["actor"] as const) : []),
    ...(!search && usesBank(cfg) && cfg.evolver === "llm" ? (["evolver"] as const) : []),
  ];
  if (!roles.length) return undefined;
  checkPriced(
    cap,
    cfg.llm.prices,
    roles.map((r) => ({ where: `llm.${r}`, model: cfg.llm[r].model })),
  );
  const usage = existing?.usage() ?? [];
  const spent = spentIn(usage);
  const earlier = [...(usage.length ? [usage] : []), ...earlierUsage([runsDir], existing?.path)];
  const forecast = forecastRun({
    cfg,
    family,
    recorded: new Set(existing?.episodes({ repair: false }).map((e) => e.id) ?? []),
    committed: existing?.bankLog({ repair: false }).done ?? new Set<string>(),
    earlier,
    ...(existing ? { dir: existing.path } : {}),
  });
  checkForecast(forecast, cap, spent, { yes: argv.yes === true, what: existing ? "the rest of this run" : "this run", print: note });
  if (!hasCap(cap)) return undefined;
  const gate = new SpendGate(cap, cfg.llm.prices, spent, ledgerOf?.(cap, spent));
  seedGate(gate, cfg, earlier, roles);
  return gate;
};

const start = async (
  configPath: string | undefined,
  resumeDir: string | undefined,
  runsDir: string,
  note: (line: string) => void,
  madeAt: (path: string) => void,
  argv: RunArgs,
): Promise<void> => {
  // Everything that can be refused is checked before a run directory is made.
  const existing = resumeDir ? RunDir.open(resumeDir) : undefined;
  const where = resumeDir ? `${resumeDir}/config.yaml` : configPath!;
  const cfg: RunConfigT = existing ? runDirConfig(existing, where, note) : readRunConfig(configPath!);
  const family = checkRunConfig(cfg, where);
  const code = codeVersion();
  if (existing) warnIfOtherCode(existing, code, note);
  const recorded = existing?.bankLog({ repair: false });
  if (recorded) checkRecordedBank(join(existing!.path, "bank-events.jsonl"), recorded.events, family.bankPayload);
  const fromFiles = usesBank(cfg) && cfg.init !== "online";
  const once = <T>(read: () => T) => {
    let value: T | undefined;
    return () => (value ??= read());
  };
  const trajectories = cfg.offline.trajectories;
  const banks = cfg.offline.banks;
  const offline = fromFiles && trajectories ? once(() => readOfflineTrajectories(trajectories)) : undefined;
  const caps = { skills: cfg.bank.maxSkills, mistakes: cfg.bank.maxMistakes };
  const shipped = fromFiles && banks ? once(() => readShippedBanks(banks, { payload: family.bankPayload, caps, note })) : undefined;
  // A new run reads its input files now, so a bad one is refused before the directory exists or is written to;
  // so does a resume whose round 0 is unfinished (afterwards the run holds what it took from them).
  if (!recorded || cfg.levels.some((level) => !recorded.done.has(updateKey(level, 0)))) {
    offline?.();
    shipped?.();
  }
  const now = new Date();
  const id = existing?.meta.id ?? runIdOf(cfg, now);
  // A family's whole search (reward search's eureka / rf-agent) replaces the rounds; its records are in the run directory.
  const search = family.searchFor?.(cfg);
  const doctor = { env: process.env, cacheDir: existing ? dirname(existing.path) : runsDir, where };
  const served = doctorSkipped(argv, process.env) ? undefined : await preflight(cfg.llm, rolesOf(cfg, search !== undefined), doctor);
  const backend = argv.backend ?? cfg.backend;
  const backendWhere = argv.backend === undefined ? `${where}: backend` : "--backend";
  // On workers, the coordinator's gate and theirs count in one ledger in Redis (written anew once the run is locked).
  const makeLedger = await sharedLedger(backend, backendWhere, id);
  let ledger: RedisLedger | undefined;
  const gate = spendGate(cfg, family, search, existing, runsDir, argv, note, makeLedger && ((cap, spent) => (ledger = makeLedger(cap, spent))));
  // A server quirk is told once per model, above the progress line once that is drawn.
  let warn = note;
  let keep: ((message: string) => void) | undefined;
  const onNotice = (message: string) => {
    warn(`warning: ${message}`);
    keep?.(message);
  };
  const models = await modelsFor(cfg, existing?.path ?? resolve(runsDir, id), { resuming: existing !== undefined, onNotice, ...(gate ? { gate } : {}) }).catch(
    async (e) => {
      await ledger?.close();
      throw e;
    },
  );
  // A Chroma that does not answer is refused before the directory exists, so no half-made run is left behind.
  const index: OpenIndex | undefined = cfg.skillIndex.enabled ? await openSkillIndex(cfg.skillIndex.dataDir, cfg.skillIndex.embedding) : undefined;
  const charge = (g: SpendGate) => (l: UsageLine) =>
    g.ledger.settle(`llm.${l.role}`, { usd: 0, tokens: 0 }, { usd: l.costUsd, tokens: l.input + l.output, output: l.output });
  const episodes = await openEpisodes(backend, backendWhere, {
    run: id,
    config: cfg,
    log: note,
    ...(gate ? { budget: gate.cap, charge: charge(gate) } : {}),
  }).catch(async (e) => {
    await Promise.all([index?.stop(), ledger?.close()]);
    throw e;
  });
  let dir: RunDir;
  let release: () => void;
  try {
    const yaml = runConfigYaml(cfg, allFamilies());
    const digest = configDigest(yaml);
    dir = existing ?? RunDir.create(runsDir, id, yaml, now, { configHash: digest.hash, config: digest.config, code });
    madeAt(dir.path);
    release = dir.lock();
    const where = dir;
    keep = (message) => where.appendNotice({ schemaVersion: 1, at: new Date().toISOString(), message });
    await ledger?.begin();
  } catch (e) {
    await Promise.all([index?.stop(), episodes?.close?.(), ledger?.close()]);
    throw e;
  }
  const view = progressView(process.stderr, () => performance.now());
  warn = (line) => view.line(line);
  const resumeHint = `Continue with: hexa run --resume ${dir.path}`;
  // The first Ctrl-C stops at the next episode boundary (episodes in flight finish and are kept); a second stops at once.
  const controller = new AbortController();
  const interrupt = new Error("interrupted");
  const onSignal = () => {
    if (!controller.signal.aborted) {
      controller.abort(interrupt);
      view.line("interrupt: stopping after the episodes in flight (Ctrl-C again to stop at once; those are then replayed on resume)");
      return;
    }
    view.stop();
    release();
    process.stderr.write(`\ninterrupted; nothing finished is lost. ${resumeHint}\n`);
    void index?.stop().finally(() => process.exit(130));
    if (!index) process.exit(130);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  let interrupted = false;
  let misleading: string | undefined;
  try {
    const removed = dir.cleanTemps();
    if (removed.length) view.line(`removed ${removed.length} temporary file(s) a killed process left: ${removed.join(", ")}`);
    dir.writesAs({ schemaVersion: 1, at: now.toISOString(), pid: process.pid, command: existing ? "run --resume" : "run", code });
    view.line(`${resumeDir ? "resuming" : "run"} ${dir.path}${cfg.agent === "heuristic" ? " (heuristic experimentalist, no LLM)" : ""}`);
    if (served) noteServed(dir.path, served, (line) => view.line(line));
    const recorded = () => ["episodes.jsonl", "bank-events.jsonl"].map((f) => (existsSync(join(dir.path, f)) ? statSync(join(dir.path, f)).size : 0)).join();
    const before = recorded();
    dir.clearStopped();
    if (search) {
      view.line(`${search.label}; ${resumeDir ? "resuming from" : "records in"} ${dir.path}`);
      // Every answered call of the search's proposer in usage.jsonl, as the rounds' episodes record theirs.
      const onCall = (call: SearchCall, turn: AssistantTurn) => dir.appendUsage(usageLine("actor", turn, { phase: "search", round: 0, ...call }, cfg));
      let u: UsageLine[] = [];
      try {
        await search.run({
          dir: dir.path,
          ...(models.actorModel ? { actorModel: models.actorModel, onCall } : {}),
          log: (line) => view.line(line),
          signal: controller.signal,
        });
      } finally {
        // metrics.json's usage totals (what hexa compare reads) also for a search that stopped; a search plays no episode.
        u = dir.usage();
        dir.writeMetrics(computeMetrics({ runId: dir.meta.id, config: cfg, episodes: [], usage: u, banks: new Map(), bankMs: 0 }));
      }
      view.stop();
      if (u.length)
        process.stdout.write(
          `tokens ${u.reduce((n, l) => n + l.input + l.output, 0)} (${u.length} calls), cost $${u.reduce((n, l) => n + l.costUsd, 0).toFixed(4)}\n`,
        );
      await scoreRun(family, cfg, dir.path, [], (t) => process.stdout.write(t));
      process.stdout.write(`run directory: ${resolve(dir.path)}
lineage: hexa inspect ${dir.path}
`);
      return;
    }
    const metrics = await runLoop(cfg, {
      family,
      dir,
      ...models,
      ...(episodes ? { episodes } : {}),
      ...(shipped ? { shippedBank: (level: string) => shipped().get(level) } : {}),
      ...(offline ? { offlineTrajectories: (level: string) => offline().get(level) ?? [] } : {}),
      now: () => performance.now(),
      onProgress: (p) => view.update(p),
      log: (line) => view.line(line),
      signal: controller.signal,
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
    await scoreRun(family, cfg, dir.path, dir.episodes({ repair: false }), (t) => process.stdout.write(t));
    // Resuming a finished run records nothing new, and leaves its report as it was.
    const report = join(dir.path, "report.html");
    process.stdout.write(`report: ${recorded() === before && existsSync(report) ? resolve(report) : writeRunReport(dir.path)}\n`);
    const fatal = (metrics.problems ?? []).filter((p) => p.fatal);
    if (fatal.length) misleading = `${dir.path}: the run finished, but its result is misleading: ${fatal.map((p) => p.message).join("; ")}`;
  } catch (e) {
    if (controller.signal.aborted && e === interrupt) interrupted = true;
    else if (e instanceof BudgetExceeded && gate) {
      view.stop();
      const spent = await gate.total();
      dir.markStopped({ schemaVersion: 1, reason: "budget", at: new Date().toISOString(), message: e.message, spent, cap: gate.cap });
      writeRunReport(dir.path);
      throw new RunStopped(`${e.message}; the run is marked stopped: budget (${dir.file("stopped")}). ${stoppedHint(dir, gate.cap, spent)}`);
    } else {
      const err = asUserError(e, `fix that (space, permissions), then: hexa run --resume ${dir.path}`);
      // A run that stops after its directory exists always says how to continue it.
      throw err instanceof HexaError && !(err instanceof InvariantError) && !err.message.includes("hexa run --resume")
        ? new ConfigError(`${err.message}. ${resumeHint}`)
        : err;
    }
  } finally {
    view.stop();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await Promise.all([index?.stop(), episodes?.close?.()]);
    await ledger?.close();
    release();
  }
  if (interrupted) {
    process.stderr.write(`\ninterrupted; nothing finished is lost. ${resumeHint}\n`);
    process.exit(130);
  }
  // Everything is recorded and reported; the exit status says the numbers are not to be trusted.
  if (misleading) throw new ConfigError(misleading);
};
