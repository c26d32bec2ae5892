import { ConfigError, HexaError, InvariantError, RunStopped } from "../errors.ts";
import type { AppContext } from "./context.ts";
import type { FamilyRegistry } from "./families.ts";
import { BudgetExceeded } from "../llm/budget.ts";
import type { SearchCall } from "../family/capabilities.ts";
import type { AssistantTurn } from "../llm/chat-model.ts";
import { usageLine } from "../loop/episode-backend.ts";
import { computeMetrics } from "../loop/metrics.ts";
import { runConfigYaml } from "../loop/run-config.ts";
import { runLoop } from "../loop/run-loop.ts";
import type { BankEvent } from "../store/bank.ts";
import { RunDir } from "../store/run-dir.ts";
import { asUserError } from "../cli-kit/write-file.ts";
import { stoppedHint } from "./budget.ts";
import { writeRunReport } from "./inspect-report.ts";
import { noteServed } from "./preflight.ts";
import { progressView, type ProgressView } from "./progress.ts";
import { configDigest } from "./run-setup.ts";
import { planRun, type FamilyOverride, type RunPlan } from "./run-plan.ts";
import { closeServices, connectServices, type RunFlags, type RunServices } from "./run-services.ts";
import { onInterrupt } from "./run-signals.ts";
import { recordedSize, summariseRounds, summariseSearch } from "./run-summary.ts";
import { hexaCommand } from "../util/hexa-command.ts";
import { checkRunStart } from "./run-check.ts";
import type { ActorMiddleware } from "./middleware-plugins.ts";

/** What starts or resumes a run: `hexa run`'s arguments, and the injection points a replay needs. */
export interface RunSessionOptions {
  /** A new run's YAML config; exactly one of it and `resumeDir`. */
  configPath?: string | undefined;
  /** The run directory to continue. */
  resumeDir?: string | undefined;
  /** Where a new run's directory is made. */
  runsDir: string;
  flags: RunFlags;
  /** Lines for the user before the progress view is drawn (stderr). */
  note: (line: string) => void;
  /** Told the run directory's path as soon as it exists, so a caller's error can name it. */
  madeAt?: (path: string) => void;
  /** The run context: its families, and its models (the endpoints; a replay's recorded answers). */
  context: AppContext;
  /**
   * The training override: replaces the family the config names before anything runs, e.g. with the same
   * family built over a trainer that replays a recorded run's trainings. Default: the registry's family as
   * it is (its trainer is the config's `trainer.command`).
   */
  family?: FamilyOverride;
}

/** A run from open to close: the session owns the directory's lock, the signals and every connection. */
interface Session {
  families: FamilyRegistry;
  /** The user's middleware (HEXA_MIDDLEWARE) the episodes played here run after hexa's. */
  middleware: ActorMiddleware;
  plan: RunPlan;
  services: RunServices;
  dir: RunDir;
  release: () => void;
  view: ProgressView;
  signal: AbortSignal;
  resumeHint: string;
}

/** Makes (or reopens) and locks the run directory; from here on server notices are also kept in notices.jsonl. */
const lockRunDir = async (plan: RunPlan, services: RunServices, o: RunSessionOptions, keep: (dir: RunDir) => void) => {
  const yaml = runConfigYaml(plan.cfg, o.context.families.all());
  const digest = configDigest(yaml);
  const dir = plan.existing ?? RunDir.create(o.runsDir, plan.id, yaml, plan.startedAt, { configHash: digest.hash, config: digest.config, code: plan.code });
  o.madeAt?.(dir.path);
  const release = dir.lock();
  plan.family.records?.openRun(dir.path);
  keep(dir);
  await services.ledger?.begin();
  return { dir, release };
};

/** The names of the user's middleware that this process's episodes run: none where it plays no episode with a model. */
const middlewareHere = (s: Session): string[] => {
  const { names } = s.middleware;
  const why =
    s.plan.search !== undefined || s.plan.cfg.agent === "heuristic"
      ? "this run plays no episode with a model"
      : s.services.episodes
        ? "hexa worker processes play this run's episodes, each with the HEXA_MIDDLEWARE of its own environment"
        : undefined;
  if (why === undefined || names.length === 0) return names;
  s.view.line(`note: HEXA_MIDDLEWARE is not used here: ${why}`);
  return [];
};

/** Records this process as a writer and tells what the run is; returns the size of what it has recorded. */
const announce = (s: Session): string => {
  const { plan, dir, view } = s;
  const removed = dir.cleanTemps();
  if (removed.length) view.line(`removed ${removed.length} temporary file(s) a killed process left: ${removed.join(", ")}`);
  const names = middlewareHere(s);
  const middleware = names.length ? { middleware: names } : {};
  dir.writesAs({
    schemaVersion: 1,
    at: plan.startedAt.toISOString(),
    pid: process.pid,
    command: plan.existing ? "run --resume" : "run",
    code: plan.code,
    ...middleware,
  });
  view.line(`${plan.existing ? "resuming" : "run"} ${dir.path}${plan.cfg.agent === "heuristic" ? " (heuristic experimentalist, no LLM)" : ""}`);
  if (names.length) view.line(`the actor's episodes run your middleware after hexa's (HEXA_MIDDLEWARE, recorded in writers.jsonl): ${names.join(", ")}`);
  if (s.services.served) noteServed(dir.path, s.services.served, (line) => view.line(line));
  const size = recordedSize(dir);
  dir.clearStopped();
  return size;
};

/** The family's whole search in place of the rounds; metrics.json's usage totals are written even when it stops. */
const runSearch = async (s: Session): Promise<void> => {
  const { plan, dir, view } = s;
  const search = plan.search!;
  view.line(`${search.label}; ${plan.existing ? "resuming from" : "records in"} ${dir.path}`);
  // Every answered call of the search's proposer in usage.jsonl, as the rounds' episodes record theirs.
  const onCall = (call: SearchCall, turn: AssistantTurn) => dir.appendUsage(usageLine("actor", turn, { phase: "search", round: 0, ...call }, plan.cfg));
  const actorModel = s.services.models.actorModel;
  try {
    await search.run({ dir: dir.path, ...(actorModel ? { actorModel, onCall } : {}), log: (line) => view.line(line), signal: s.signal });
  } finally {
    // A search plays no episode; hexa compare reads its usage from metrics.json.
    dir.writeMetrics(computeMetrics({ runId: dir.meta.id, config: plan.cfg, episodes: [], usage: dir.usage(), banks: new Map(), bankMs: 0 }));
  }
  view.stop();
  await summariseSearch(plan.family, plan.cfg, dir, dir.usage());
};

/** The rounds (src/loop/run-loop.ts), then their summary; returns the message of a misleading result. */
const runRounds = async (s: Session, sizeBefore: string): Promise<string | undefined> => {
  const { plan, dir, view, services } = s;
  const { cfg, shipped, offline } = plan;
  const index = services.index;
  const metrics = await runLoop(cfg, {
    family: plan.family,
    dir,
    ...services.models,
    ...(s.middleware.list.length ? { actorMiddleware: s.middleware.list } : {}),
    ...(services.episodes ? { episodes: services.episodes } : {}),
    ...(shipped ? { shippedBank: (level: string) => shipped().get(level) } : {}),
    ...(offline ? { offlineTrajectories: (level: string) => offline().get(level) ?? [] } : {}),
    now: () => performance.now(),
    onProgress: (p) => view.update(p),
    log: (line) => view.line(line),
    signal: s.signal,
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
  return summariseRounds(s.families, plan.family, cfg, dir, metrics, sizeBefore);
};

/** The error a run that stopped after its directory exists ends with: a spend stop is recorded; every other says how to resume. */
const stoppedError = async (s: Session, e: unknown): Promise<unknown> => {
  const { dir, view, services } = s;
  const gate = services.gate;
  if (e instanceof BudgetExceeded && gate) {
    view.stop();
    const spent = await gate.total();
    dir.markStopped({ schemaVersion: 1, reason: "budget", at: new Date().toISOString(), message: e.message, spent, cap: gate.cap });
    writeRunReport(s.families, dir.path);
    return new RunStopped(`${e.message}; the run is marked stopped: budget (${dir.file("stopped")}). ${stoppedHint(dir, gate.cap, spent)}`);
  }
  const err = asUserError(e, `fix that (space, permissions), then: ${hexaCommand(`run --resume ${dir.path}`)}`);
  return err instanceof HexaError && !(err instanceof InvariantError) && !err.message.includes(" run --resume ")
    ? new ConfigError(`${err.message}. ${s.resumeHint}`)
    : err;
};

/** Opens everything a run needs in order; on a failure, closes what was opened and rethrows. */
const openSession = async (o: RunSessionOptions): Promise<Omit<Session, "signal"> & { notices: { warn: (line: string) => void } }> => {
  const plan = planRun(o.context.families, o, o.note, o.family);
  // Workers train with their own trainer (docs/security.md), so only a run that trains here asks its trainer first.
  if ((o.flags.backend ?? plan.cfg.backend) === "local") await checkRunStart(plan.family, plan.cfg, plan.where);
  // A server quirk is told once per model, above the progress line once that is drawn, and kept once the directory exists.
  const notices = { warn: o.note, keep: undefined as ((message: string) => void) | undefined };
  const onNotice = (message: string) => {
    notices.warn(`warning: ${message}`);
    notices.keep?.(message);
  };
  const services = await connectServices(plan, {
    runsDir: o.runsDir,
    flags: o.flags,
    note: o.note,
    onNotice,
    models: o.context.models,
    embedded: o.context.embedded,
    families: o.context.families,
  });
  let locked: { dir: RunDir; release: () => void };
  try {
    locked = await lockRunDir(plan, services, o, (dir) => {
      notices.keep = (message) => dir.appendNotice({ schemaVersion: 1, at: new Date().toISOString(), message });
    });
  } catch (e) {
    await closeServices(services);
    throw e;
  }
  const view = progressView(process.stderr, () => performance.now());
  notices.warn = (line) => view.line(line);
  return {
    families: o.context.families,
    middleware: o.context.actorMiddleware,
    plan,
    services,
    ...locked,
    view,
    resumeHint: `Continue with: ${hexaCommand(`run --resume ${locked.dir.path}`)}`,
    notices,
  };
};

/**
 * Starts or resumes a run (docs/ARCHITECTURE.md §3): plan (config, checks, offline inputs) → connect (doctor,
 * spend gate, models, Chroma, backend) → lock the directory → the family's search or the rounds → summary →
 * close. Every exit path closes the connections and releases the lock; the first Ctrl-C stops after the
 * episodes in flight, a second at once (exit 130, with how to resume).
 */
export const runSession = async (o: RunSessionOptions): Promise<void> => {
  const opened = await openSession(o);
  const interrupt = onInterrupt(opened);
  const s: Session = { ...opened, signal: interrupt.signal };
  let misleading: string | undefined;
  try {
    const sizeBefore = announce(s);
    if (s.plan.search) await runSearch(s);
    else misleading = await runRounds(s, sizeBefore);
  } catch (e) {
    if (!interrupt.caused(e)) throw await stoppedError(s, e);
  } finally {
    s.view.stop();
    interrupt.uninstall();
    await closeServices(s.services);
    s.release();
  }
  if (interrupt.interrupted()) {
    process.stderr.write(`\ninterrupted; nothing finished is lost. ${s.resumeHint}\n`);
    process.exit(130);
  }
  // Everything is recorded and reported; the exit status says the numbers are not to be trusted.
  if (misleading) throw new ConfigError(misleading);
};
