import { ConfigError } from "../errors.ts";
import type { UserMiddleware } from "../../agents/user-middleware.ts";
import type { AssistantTurn } from "../llm/chat-model.ts";
import type { RoleModel } from "../llm/ask.ts";
import { usageRecord } from "../llm/accounting.ts";
import { foldEvents } from "../store/bank.ts";
import { episodeId, type BankLog, type RunDir } from "../store/run-dir.ts";
import type { EpisodeRecord } from "../store/run-records.ts";
import type { LevelFamily } from "../family/family.ts";
import { mapLimit } from "./pool.ts";
import { endpointFailed, episodeRecord } from "./episode-record.ts";
import type { RunConfig } from "./run-config.ts";
import { playEpisode } from "./play.ts";
import { schedule } from "./schedule.ts";

export interface EvalRow {
  level: string;
  /** Cumulative success and mean counted turns during the learning stream. */
  stream: { episodes: number; successes: number; meanTurns: number };
  heldOut: { episodes: number; successes: number; meanTurns: number };
  seeds: number[];
}

const stats = (eps: readonly EpisodeRecord[]) => ({
  episodes: eps.length,
  successes: eps.filter((e) => e.trajectory.success).length,
  meanTurns: eps.length ? eps.reduce((s, e) => s + e.trajectory.turns, 0) / eps.length : 0,
});

/**
 * The held-out seeds per level: the given ones (refused if the run learned from them), else the next `count`
 * unseen. `learned` adds what the run's files say it learned from beyond its schedule: the seeds of offline
 * trajectories read from files and every source seed cited in its bank (a shipped bank's included).
 */
export const heldOutSeeds = (
  cfg: RunConfig,
  family: LevelFamily,
  /** One list for every level, or one per level (a level left out of the record is not evaluated). */
  opts: { seeds?: readonly number[] | Readonly<Record<string, readonly number[]>>; count: number },
  learned: ReadonlyMap<string, ReadonlySet<number>> = new Map(),
): Map<string, number[]> => {
  const plan = schedule(cfg, family);
  const perLevel = opts.seeds && !Array.isArray(opts.seeds) ? (opts.seeds as Readonly<Record<string, readonly number[]>>) : undefined;
  const strangers = Object.keys(perLevel ?? {}).filter((l) => !cfg.levels.includes(l));
  if (strangers.length)
    throw new ConfigError(
      `--seeds: ${strangers.join(", ")} ${strangers.length === 1 ? "is not a level" : "are not levels"} of this run; use ${cfg.levels.join(", ")}`,
    );
  return new Map(
    cfg.levels.map((level) => {
      const p = plan.get(level)!;
      const seen = (s: number) => p.seen.has(s) || (learned.get(level)?.has(s) ?? false);
      const given = perLevel ? (perLevel[level] ?? []) : (opts.seeds as readonly number[] | undefined);
      if (!given) {
        const free = p.heldOut.filter((s) => !seen(s));
        if (free.length === 0) throw new ConfigError(`--count: ${level} has no vetted seeds left outside what the run learned from; pass --seeds`);
        return [level, free.slice(0, opts.count)];
      }
      const bad = given.filter(seen);
      if (bad.length)
        throw new ConfigError(
          `--seeds: ${bad.join(", ")} were seen while learning on ${level}; held-out seeds must be disjoint from the stream, the offline seeds and the bank's sources`,
        );
      const vetted = new Set(family.seedsOf(level));
      const unvetted = given.filter((s) => !vetted.has(s));
      if (unvetted.length) {
        throw new ConfigError(
          `--seeds: ${unvetted.join(", ")} ${unvetted.length === 1 ? "is not a vetted seed" : "are not vetted seeds"} of ${level} (${level} has ${vetted.size}, kept by hexa levels certify); held-out figures need seeds known to have a solution: pick from its certified list, or use --count`,
        );
      }
      return [level, [...given]];
    }),
  );
};

/** What evaluation reads of a run, read once (without repairing anything). */
export interface RunState {
  episodes: readonly EpisodeRecord[];
  log: BankLog;
}
export const readRunState = (dir: RunDir, onDuplicate?: (ids: string[]) => void): RunState => ({
  episodes: dir.episodes({ repair: false, ...(onDuplicate ? { onDuplicate } : {}) }),
  log: dir.bankLog({ repair: false }),
});

/** Per level, the seeds the run's records show it learned from: offline trajectories and the bank's cited sources. */
export const learnedSeeds = (run: RunState): Map<string, Set<number>> => {
  const out = new Map<string, Set<number>>();
  const add = (level: string, seeds: readonly number[]) => {
    const set = out.get(level) ?? new Set<number>();
    seeds.forEach((s) => set.add(s));
    out.set(level, set);
  };
  for (const e of run.episodes) if (e.phase === "offline") add(e.level, [e.seed]);
  for (const [level, events] of run.log.events) {
    for (const e of events) if ("entry" in e && e.entry.kind !== "lesson") add(level, e.entry.sourceSeeds);
  }
  return out;
};

/**
 * Held-out evaluation (docs/spec/method.md §9): the frozen final bank on seeds the run never saw, beside the cumulative
 * stream figure. Writes every episode to `evalFile`; the run's own files are only read. `played`: episodes an
 * earlier, stopped evaluation of the same file already recorded; they are counted, not played again.
 */
export const evaluateRun = async (
  cfg: RunConfig,
  ports: {
    family: LevelFamily;
    dir: RunDir;
    actorModel?: RoleModel;
    /** The user's middleware for the actor's agent (LoopPorts.actorMiddleware). */
    actorMiddleware?: UserMiddleware;
    now: () => number;
    evalFile: string;
    onEpisode?: (r: EpisodeRecord) => void;
    /** Each model call as it is answered, with the episode it was made for. */
    onCall?: (turn: AssistantTurn, where: { level: string; round: number; seed: number }) => void;
    played?: readonly EpisodeRecord[];
  },
  seeds: Map<string, number[]>,
  run: RunState,
): Promise<EvalRow[]> => {
  const finalRound = cfg.rounds;
  const banks = new Map(cfg.levels.map((level) => [level, foldEvents(run.log.events.get(level) ?? [])] as const));
  const before = new Map((ports.played ?? []).map((e) => [e.id, e] as const));
  const jobs = cfg.levels
    .flatMap((level) => seeds.get(level)!.map((seed) => ({ level, seed })))
    .filter((j) => !before.has(episodeId("eval", j.level, finalRound + 1, j.seed)));
  const played = await mapLimit(jobs, cfg.concurrency, async ({ level, seed }) => {
    const onCall = ports.onCall;
    const model = ports.actorModel && onCall ? ports.actorModel.listening((turn) => onCall(turn, { level, round: finalRound + 1, seed })) : ports.actorModel;
    const { trajectory, retrieved } = await playEpisode(ports.family, {
      task: { level, seed },
      agent: cfg.agent,
      config: cfg,
      bank: banks.get(level)!,
      ...(model ? { model } : {}),
      ...(ports.actorMiddleware ? { middleware: ports.actorMiddleware } : {}),
      costOf: (turn) => usageRecord("actor", turn, cfg.llm.prices).costUsd,
      now: ports.now,
    });
    const id = episodeId("eval", level, finalRound + 1, seed);
    if (trajectory.stopReason === "error") throw endpointFailed(id, trajectory.error, ports.dir.path);
    const rec = episodeRecord({ id, phase: "eval", level, round: finalRound + 1, seed, bankRound: finalRound, retrieved, trajectory });
    ports.dir.appendEval(ports.evalFile, rec);
    ports.onEpisode?.(rec);
    return rec;
  });
  const done = [...before.values(), ...played].filter((e) => seeds.get(e.level)?.includes(e.seed));
  return cfg.levels.map((level) => ({
    level,
    stream: stats(run.episodes.filter((e) => e.phase === "stream" && e.level === level)),
    heldOut: stats(done.filter((e) => e.level === level)),
    seeds: seeds.get(level)!,
  }));
};
