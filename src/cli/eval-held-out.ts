import { basename, dirname, join } from "node:path";
import type { FamilyRegistry } from "../app/families.ts";
import type { EmbeddedModels } from "../app/embedded-models.ts";
import type { ActorMiddleware } from "../app/middleware-plugins.ts";
import { ConfigError, RunStopped } from "../errors.ts";
import { BudgetExceeded, checkPriced, hasCap, SpendGate, type Budget } from "../llm/budget.ts";
import { isEmbedded } from "../llm/config.ts";
import { evaluateRun, heldOutSeeds, learnedSeeds, readRunState, type EvalRow, type RunState } from "../loop/evaluate.ts";
import { usageLine } from "../loop/episode-backend.ts";
import { heldOutArg } from "../loop/compare/heldout.ts";
import { forecastEval } from "../loop/forecast.ts";
import type { RunConfig } from "../loop/run-config.ts";
import { appendEvalUsage, clearEvalStopped, evalStopped, evalUsage, markEvalStopped, stoppedEvalOf } from "../store/eval-spend.ts";
import { updateKey, type RunDir } from "../store/run-dir.ts";
import { terminalText } from "../util/terminal-text.ts";
import { openRun } from "./run-open.ts";
import { budgetFrom, checkForecast, earlierUsage, raiseFlags, seedGate, spentIn } from "../app/budget.ts";
import { percent } from "../cli-kit/format.ts";
import { modelsFor } from "../app/run-setup.ts";
import type { LevelFamily } from "../family/family.ts";
import { readerConfig } from "./run-config-trust.ts";
import { doctorSkipped, preflight, servedChanges } from "../app/preflight.ts";
import type { EvalArgs } from "./eval.ts";
import { hexaCommand } from "../util/hexa-command.ts";

/** Held-out figures mean something only for the final bank, so an interrupted run is refused. */
const requireFinished = (path: string, { episodes, log }: RunState, cfg: RunConfig): void => {
  const played = new Set(episodes.flatMap((e) => (e.phase === "stream" ? [e.id] : [])));
  const need = cfg.rounds * cfg.episodesPerRound * cfg.levels.length;
  const open = cfg.levels.filter((l) => !log.done.has(updateKey(l, cfg.rounds)));
  if (played.size < need || open.length) {
    const commit = open.length ? `; round ${cfg.rounds} not committed on ${open.join(", ")}` : "";
    throw new ConfigError(
      `${path}: the run is unfinished (got ${played.size} of ${need} stream episodes${commit}); finish it first with ${hexaCommand(`run --resume ${path}`)}, then evaluate`,
    );
  }
};

const figure = (s: EvalRow["stream"]) => `${s.successes}/${s.episodes} ${percent(s.successes, s.episodes)}, ${s.meanTurns.toFixed(1)} turns`;

const table = (rows: readonly EvalRow[]): string => {
  const w = Math.max(5, ...rows.map((r) => r.level.length)) + 2;
  return [
    `${"level".padEnd(w)}${"stream (cumulative)".padEnd(26)}${"held-out".padEnd(26)}seeds`,
    ...rows.map((r) => `${r.level.padEnd(w)}${figure(r.stream).padEnd(26)}${figure(r.heldOut).padEnd(26)}${r.seeds.join(", ")}`),
  ].join("\n");
};

/** The held-out seeds: --seeds as given, else --count's, with a note naming each level that has fewer left and the number it plays. */
const chosenSeeds = (cfg: RunConfig, family: LevelFamily, argv: EvalArgs, run: RunState): Map<string, number[]> => {
  const given = argv.seeds;
  const seeds = heldOutSeeds(cfg, family, { ...(given ? { seeds: given } : {}), count: argv.count }, learnedSeeds(run));
  const short = [...seeds].filter(([, s]) => s.length < argv.count).map(([level, s]) => `${level} ${s.length}`);
  if (!given && short.length)
    process.stderr.write(
      `note: --count ${argv.count}: fewer vetted seeds are left outside what the run learned from; evaluating ${short.join(", ")} (pass --seeds to pick others)\n`,
    );
  return seeds;
};

/** The finished run to evaluate, with its config as the reader uses it (docs/security.md), its family and records. */
const openFinished = (families: FamilyRegistry, argv: EvalArgs) => {
  const path = argv.run;
  const opened = openRun(families, path);
  const { dir } = opened;
  // A run directory may be a stranger's: its endpoints, trainer command and paths are used only when the reader says so.
  const cfg = readerConfig(opened.cfg, {
    trust: argv["trust-run-config"],
    where: `${path}/config.yaml`,
    note: (line) => process.stderr.write(`${line}\n`),
    families: families.all(),
  });
  const run = readRunState(dir, (ids) =>
    process.stderr.write(
      `warning: ${dir.file("episodes")} has ${ids.length} duplicated line(s) (${ids.slice(0, 3).join(", ")}${ids.length > 3 ? ", …" : ""}); each episode is counted once\n`,
    ),
  );
  requireFinished(path, run, cfg);
  const family = families.get(cfg.family);
  // The family's own folders (reward search: its trainer cache) go beside the run, in its runs folder, never here.
  family.records?.openRun(dir.path, { keep: false });
  return { path, dir, cfg, family, run };
};

/** `hexa eval`: the run's final bank played frozen on held-out seeds, under the evaluation's spend cap. */
export const evaluate = async (families: FamilyRegistry, argv: EvalArgs, middleware: ActorMiddleware, embedded: EmbeddedModels): Promise<void> => {
  const { path, dir, cfg, family, run } = openFinished(families, argv);
  const seeds = chosenSeeds(cfg, family, argv, run);
  const wanted = Object.fromEntries(seeds);
  // An evaluation of these seeds that a spend cap stopped is continued: what it played is kept, not played again.
  const stopped = stoppedEvalOf(dir.path, wanted);
  const played = stopped?.played ?? [];
  const total = [...seeds.values()].reduce((n, s) => n + s.length, 0);
  if (cfg.agent !== "heuristic" && !doctorSkipped(argv, process.env)) {
    const served = await preflight(cfg.llm, ["actor"], { env: process.env, cacheDir: dirname(dir.path), where: `${path}/config.yaml` });
    if (served) servedChanges(dir.path, served).forEach((line) => process.stderr.write(`${line}\n`));
  }
  const gate = evalGate(family, cfg, dir, { cap: budgetFrom({}, argv), toPlay: total - played.length, spentBefore: stopped?.usage ?? [], yes: argv.yes });
  // The frozen bank needs no evolver; the actor's calls go to eval/llm-log.jsonl so the run's own log is untouched.
  const { actorModel } = await modelsFor(
    { ...cfg, evolver: "heuristic", llm: { ...cfg.llm, auditLog: cfg.llm.auditLog ?? join(dir.path, "eval", "llm-log.jsonl") } },
    dir.path,
    { onNotice: (m) => process.stderr.write(`warning: ${m}\n`), ...(gate ? { gate } : {}), embedded },
  );
  const file = stopped?.file ?? dir.evalFile(new Date());
  const who = `agent ${cfg.agent} (${cfg.agent === "heuristic" ? "heuristic, no LLM" : cfg.llm.actor.model})`;
  process.stderr.write(
    `eval ${dir.meta.id}: ${who}, bank after round ${cfg.rounds}, ${total} episodes${stopped ? ` (continuing ${file}: ${played.length} played before its spend cap stopped it)` : ""}\n`,
  );
  let done = played.length;
  let costUsd = 0;
  let tokens = 0;
  let rows: EvalRow[];
  try {
    rows = await evaluateRun(
      cfg,
      {
        family,
        dir,
        ...(actorModel ? { actorModel } : {}),
        ...(middleware.list.length ? { actorMiddleware: middleware.list } : {}),
        now: () => performance.now(),
        evalFile: file,
        played,
        onCall: (turn, where) => appendEvalUsage(dir.path, { ...usageLine("actor", turn, { phase: "eval", ...where }, cfg), evalFile: basename(file) }),
        onEpisode: (r) => {
          done++;
          costUsd += r.trajectory.usage.costUsd;
          tokens += r.trajectory.usage.input + r.trajectory.usage.output;
          const how = r.trajectory.success ? `solved in ${r.trajectory.turns} turns` : `not solved (${r.trajectory.turns} turns)`;
          process.stderr.write(terminalText(`[${done}/${total}] ${r.level} seed ${r.seed}: ${how}\n`));
        },
      },
      seeds,
      run,
    );
  } catch (e) {
    if (!(e instanceof BudgetExceeded && gate)) throw e;
    const spent = await gate.total();
    markEvalStopped(dir.path, {
      schemaVersion: 1,
      reason: "budget",
      at: new Date().toISOString(),
      message: e.message,
      spent,
      cap: gate.cap,
      evalFile: basename(file),
      seeds: wanted,
    });
    throw new RunStopped(
      `${e.message}; the evaluation is marked stopped: budget (${join(dir.path, "eval", "stopped.json")}) and its finished episodes are kept in ${file}. Raise the cap and continue (the same seeds; no episode is played twice): ${hexaCommand(`eval ${path} --seeds '${heldOutArg(wanted)}' ${raiseFlags(gate.cap, spent)}${argv["trust-run-config"] ? " --trust-run-config" : ""}`)}`,
    );
  }
  if (evalStopped(dir.path)?.evalFile === basename(file)) clearEvalStopped(dir.path);
  process.stdout.write(terminalText(`\nheld-out evaluation of ${dir.meta.id} — ${who}, bank after round ${cfg.rounds}\n${table(rows)}\n`));
  process.stdout.write(`tokens ${tokens}, cost $${costUsd.toFixed(4)}\neval file: ${file}\n`);
};

/**
 * The evaluation's spend cap (docs/spec/method.md §11), from --budget-usd / --budget-tokens: the forecast is printed before
 * anything is written and a start it says would cross the cap is refused without --yes; the gate then stops
 * the evaluation before the call that would. A continued evaluation counts what it already spent.
 */
const evalGate = (
  family: LevelFamily,
  cfg: RunConfig,
  dir: RunDir,
  o: { cap: Budget; toPlay: number; spentBefore: Parameters<typeof spentIn>[0]; yes: boolean },
): SpendGate | undefined => {
  if (cfg.agent === "heuristic") return undefined;
  // An embedded model costs nothing (src/llm/accounting.ts priceOf).
  checkPriced(o.cap, cfg.llm.prices, isEmbedded(cfg.llm.actor) ? [] : [{ where: "llm.actor", model: cfg.llm.actor.model }]);
  const spent = spentIn(o.spentBefore);
  const earlier = [evalUsage(dir.path), ...earlierUsage([dirname(dir.path)])];
  const forecast = forecastEval({ cfg, family, episodes: o.toPlay, earlier });
  checkForecast(forecast, o.cap, spent, { yes: o.yes, what: "this evaluation", print: (line) => process.stderr.write(`${line}\n`) });
  if (!hasCap(o.cap)) return undefined;
  const gate = new SpendGate(o.cap, cfg.llm.prices, spent);
  seedGate(gate, cfg, earlier, ["actor"]);
  return gate;
};
