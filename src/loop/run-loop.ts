import { labelTrajectories } from "../../agents/evolver-labels.ts";
import type { AssistantTurn, ChatModel } from "../llm/chat-model.ts";
import { metered } from "../llm/metered.ts";
import type { Role } from "../llm/config.ts";
import { applyEvent, EMPTY_BANK, foldEvents, type Bank, type BankEvent } from "../store/bank.ts";
import { episodeId, updateKey, type RunDir } from "../store/run-dir.ts";
import type { EpisodeRecord, Phase, UsageLine } from "../store/run-records.ts";
import type { Trajectory } from "../store/trajectory.ts";
import { updateBank, updatesAt } from "./bank-update.ts";
import { ConfigError } from "../errors.ts";
import { LlmError } from "../llm/llm-error.ts";
import type { LevelFamily } from "../family/family.ts";
import { computeMetrics, type Metrics } from "./metrics.ts";
import { mapLimit } from "./pool.ts";
import { usesBank, type RunAgent, type RunConfig } from "./run-config.ts";
import { event } from "../../agents/evolver-labels.ts";
import { localBackend, usageLine, type EpisodeBackend, type EpisodeJob } from "./episode-backend.ts";
import { needsOfflineRuns, schedule } from "./schedule.ts";

/**
 * An episode the model endpoint broke off is not an outcome of the method: it is not recorded (it would count
 * as a failure and teach the evolver nothing true), the run stops, and a resume plays it again.
 */
export const endpointFailed = (id: string, error: string | undefined, runPath: string): ConfigError =>
  new ConfigError(
    `${id}: the model endpoint failed (${error ?? "no detail"}); the episode was not recorded. Fix the endpoint or key, then: hexa run --resume ${runPath}`,
  );

/** A finished trajectory as the run records it: with its r(τ) and category (docs/spec/method.md §2). */
export const episodeRecord = (r: Omit<EpisodeRecord, "schemaVersion" | "r" | "category">): EpisodeRecord => {
  const [label] = labelTrajectories([r.trajectory], [r.id]);
  return { schemaVersion: 1, ...r, r: label!.r, category: label!.category };
};

export interface Progress {
  phase: Phase;
  round: number;
  done: number;
  total: number;
  successes: number;
  tokens: number;
  costUsd: number;
}

export interface LoopPorts {
  family: LevelFamily;
  dir: RunDir;
  actorModel?: ChatModel;
  evolverModel?: ChatModel;
  /** A level's shipped round-0 bank when `offline.banks` is set (asked only while round 0 is not committed). */
  shippedBank?: (level: string) => Bank | undefined;
  /** A level's earlier trajectories when `offline.trajectories` is set (asked only while round 0 is not committed). */
  offlineTrajectories?: (level: string) => Trajectory[];
  now: () => number;
  onProgress?: (p: Progress) => void;
  log?: (line: string) => void;
  /** After each round's updates, with every level's committed events (e.g. to refresh the Chroma index). */
  afterRound?: (round: number, events: ReadonlyMap<string, readonly BankEvent[]>) => Promise<void>;
  /**
   * Ctrl-C: once aborted, no episode or update starts; those in flight finish and are recorded, then the loop
   * rejects with the signal's reason. The loop yields to the event loop after every episode, so a signal is
   * seen even while synchronous (heuristic) episodes run back to back.
   */
  signal?: AbortSignal;
  /** Where episodes are played (docs/ARCHITECTURE.md §7); unset: in this process (the local backend over actorModel). */
  episodes?: EpisodeBackend;
}

/** An episode as the loop schedules it; its id, bank and allowance are made when it plays. */
type Job = Omit<EpisodeJob, "id" | "bank" | "allowance">;

/**
 * The round loop (docs/ARCHITECTURE.md §4, docs/spec/method.md §10): offline trajectories and the round-0 distillation, then R rounds of x episodes per
 * level (concurrent, bounded) with a bank update per level between rounds. Everything is derived from the run
 * directory, so calling it again on the same directory resumes: finished episodes and committed updates are
 * skipped, an update cut short is redone.
 */
export const runLoop = async (cfg: RunConfig, ports: LoopPorts): Promise<Metrics> => {
  const { dir, family, signal } = ports;
  const plan = schedule(cfg, family);
  const onDuplicate = (ids: string[]) =>
    ports.log?.(
      `warning: episodes.jsonl has ${ids.length} duplicated line(s) (${ids.slice(0, 3).join(", ")}${ids.length > 3 ? ", …" : ""}); each episode is counted once, the first line kept`,
    );
  const records = new Map(dir.episodes({ onDuplicate }).map((e) => [e.id, e] as const));
  const log = dir.bankLog();
  const events = new Map(cfg.levels.map((l) => [l, log.events.get(l) ?? []] as const));
  let bankMs = log.ms;
  const usage = dir.usage();
  // Each level's bank, folded once and then advanced by every committed update (a refold per episode grows with the log).
  const banks = new Map(cfg.levels.map((l) => [l, foldEvents(events.get(l) ?? [])] as const));
  const bankOf = (level: string): Bank => banks.get(level) ?? EMPTY_BANK;
  /**
   * The bank an episode of round r + 1 plays with: the fold of the log up to round r. In an uninterrupted run
   * it is the live bank; a resume that replays a lost record of an early round must not show it a later bank.
   */
  const atRound = new Map<string, Bank>();
  const bankAt = (level: string, round: number): Bank => {
    const key = updateKey(level, round);
    if (!atRound.has(key)) atRound.set(key, foldEvents(events.get(level) ?? [], round));
    return atRound.get(key)!;
  };
  /** Lets a pending signal in between synchronous episodes (a heuristic round never otherwise yields). */
  const boundary = () => new Promise<void>((r) => setImmediate(r));
  /** Folds an update (a fold that fails is a hexa bug, thrown before anything is written), then commits it. */
  const commit = (level: string, round: number, out: readonly BankEvent[], ms: number) => {
    const next = out.reduce(applyEvent, bankOf(level));
    dir.appendBankUpdate(level, round, out, ms);
    events.set(level, [...(events.get(level) ?? []), ...out]);
    banks.set(level, next);
    log.done.add(updateKey(level, round));
    bankMs += ms;
  };

  const offlineAgent: RunAgent = cfg.agent === "heuristic" ? "heuristic" : "react";
  const total = cfg.levels.reduce((n, l) => n + plan.get(l)!.offline.length + plan.get(l)!.rounds.flat().length, 0);
  const progress = (phase: Phase, round: number) => {
    const played = [...records.values()].filter((e) => e.phase !== "eval");
    const tokens = usage.reduce((s, u) => s + u.input + u.output, 0);
    ports.onProgress?.({
      phase,
      round,
      done: played.length,
      total,
      successes: played.filter((e) => e.phase === "stream" && e.trajectory.success).length,
      tokens,
      costUsd: usage.reduce((s, u) => s + u.costUsd, 0),
    });
  };

  const record = (line: UsageLine) => {
    usage.push(line);
    dir.appendUsage(line);
  };
  const meter = (role: Role, model: ChatModel | undefined, where: { phase: Phase; level: string; round: number; seed?: number }) =>
    model && metered(model, (turn: AssistantTurn) => record(usageLine(role, turn, where, cfg)));
  const episodes = ports.episodes ?? localBackend(cfg, { family, ...(ports.actorModel ? { actorModel: ports.actorModel } : {}), now: ports.now });
  const inFlight = episodes.inFlight ?? cfg.concurrency;

  /** The family's share of a run-wide budget for the episode, from what the level's earlier phases recorded. */
  const allowanceOf = (job: Job): number | undefined => {
    if (!family.allowanceOf) return undefined;
    const before = (e: EpisodeRecord) => e.level === job.level && (e.phase === "offline" || (e.phase === "stream" && e.round < job.round));
    const earlier = job.phase === "stream" ? [...records.values()].filter(before) : [];
    return family.allowanceOf({ config: cfg, level: job.level, seed: job.seed, earlier });
  };
  const play = async (job: Job): Promise<void> => {
    const id = episodeId(job.phase, job.level, job.round, job.seed);
    if (records.has(id) || signal?.aborted) return;
    const bank = job.bankRound === null ? EMPTY_BANK : bankAt(job.level, job.bankRound);
    const allowance = allowanceOf(job);
    const { trajectory, retrieved } = await episodes.play({ id, ...job, bank, ...(allowance === undefined ? {} : { allowance }) }, record);
    if (trajectory.stopReason === "error") throw endpointFailed(id, trajectory.error, dir.path);
    const rec = episodeRecord({ id, phase: job.phase, level: job.level, round: job.round, seed: job.seed, bankRound: job.bankRound, retrieved, trajectory });
    dir.appendEpisode(rec);
    records.set(id, rec);
    progress(job.phase, job.round);
    await boundary();
  };

  const update = async (level: string, round: number, batch: readonly EpisodeRecord[]): Promise<void> => {
    if (log.done.has(updateKey(level, round))) return;
    signal?.throwIfAborted();
    const started = ports.now();
    const model = meter("evolver", ports.evolverModel, { phase: round === 0 ? "offline" : "stream", level, round });
    const labelled = batch.map((e) => ({ id: e.id, trajectory: e.trajectory, r: e.r, category: e.category }));
    let out: BankEvent[];
    try {
      out = await updateBank({ config: cfg, family, level, round, bank: bankOf(level), labelled, ...(model ? { evolverModel: model } : {}) });
    } catch (e) {
      if (!(e instanceof LlmError)) throw e;
      throw new ConfigError(
        `${level} round ${round}: the evolver's model endpoint failed (${e.message}); the bank update was not committed. Fix the endpoint or key, then: hexa run --resume ${dir.path}`,
      );
    }
    commit(level, round, out, ports.now() - started);
    if (!updatesAt(cfg, round)) return;
    const failed = out.find((e) => e.type === "evolver_failure");
    const now = bankOf(level);
    const what = failed?.type === "evolver_failure" ? `kept (evolver failed: ${failed.error})` : `updated with ${out.length} event(s)`;
    ports.log?.(`${level} round ${round}: bank ${what}; now ${now.skills.length} skills, ${now.mistakes.length} mistakes`);
  };

  const snapshot = (round: number) => {
    // From the log, not the live bank: a resumed process rewrites earlier rounds' snapshots too.
    dir.writeSnapshot(round, Object.fromEntries(cfg.levels.map((l) => [l, foldEvents(events.get(l) ?? [], round)])));
  };
  const writeMetrics = () => {
    // Each level's bank after every round, from the log (a resumed process has not seen the early rounds).
    const history = new Map(cfg.levels.map((l) => [l, Array.from({ length: cfg.rounds + 1 }, (_, r) => foldEvents(events.get(l) ?? [], r))] as const));
    const m = computeMetrics({ runId: dir.meta.id, config: cfg, episodes: [...records.values()], usage, banks: history, bankMs, events });
    dir.writeMetrics(m);
    return m;
  };

  // Round 0: the initial bank from offline episodes (played, or read from files and recorded here) or a shipped bank.
  const noBank = (level: string) =>
    new ConfigError(
      `offline: no ${cfg.offline.banks ? "bank" : "trajectories"} for ${level} in ${JSON.stringify(cfg.offline.banks ?? cfg.offline.trajectories)}; add a file for it or drop the level`,
    );
  const refuseStreamSeeds = (level: string, seeds: readonly number[], what: string) => {
    const stream = new Set(plan.get(level)!.rounds.flat());
    const overlap = [...new Set(seeds.filter((seed) => stream.has(seed)))];
    if (overlap.length)
      throw new ConfigError(
        `offline.${what}: ${level}'s seeds ${overlap.join(", ")} are also in this run's stream; use ones learned on other seeds or raise seeds.offset past them`,
      );
  };
  const fromFiles = (level: string): EpisodeRecord[] => {
    const given = ports.offlineTrajectories?.(level) ?? [];
    if (given.length === 0) throw noBank(level);
    refuseStreamSeeds(
      level,
      given.map((t) => t.seed),
      "trajectories",
    );
    const recs = given.map((trajectory, i) =>
      episodeRecord({
        id: `offline/${level}/file${i + 1}/s${trajectory.seed}`,
        phase: "offline",
        level,
        round: 0,
        seed: trajectory.seed,
        bankRound: null,
        retrieved: [],
        trajectory,
      }),
    );
    // Kept in the run, so the bank's evidence ids point at records here and a resume never needs the files.
    for (const rec of recs.filter((x) => !records.has(x.id))) {
      dir.appendEpisode(rec);
      records.set(rec.id, rec);
    }
    return recs;
  };
  /** Whether a level's offline episodes are played here: for its round-0 update, or again to restore their records. */
  const playsOffline = (level: string) =>
    log.done.has(updateKey(level, 0)) ? needsOfflineRuns(cfg) : usesBank(cfg) && cfg.init !== "online" && !cfg.offline.banks && !cfg.offline.trajectories;
  /** Every such level's offline episodes in one batch, so that the pool stays full; each update then reads its own. */
  const playOffline = async (): Promise<void> => {
    const jobs = cfg.levels
      .filter(playsOffline)
      .flatMap((level) => plan.get(level)!.offline.map((seed): Job => ({ phase: "offline", level, round: 0, seed, agent: offlineAgent, bankRound: null })));
    await mapLimit(jobs, inFlight, play);
    signal?.throwIfAborted();
  };
  const offlineRecords = (level: string): EpisodeRecord[] => plan.get(level)!.offline.map((seed) => records.get(episodeId("offline", level, 0, seed))!);
  /** A shipped bank enters as add events under ids of its own, so the log stays the whole record. */
  const ship = (level: string): void => {
    const bank = ports.shippedBank?.(level);
    if (!bank) throw noBank(level);
    const entries = [...bank.skills, ...bank.mistakes];
    refuseStreamSeeds(
      level,
      entries.flatMap((e) => e.sourceSeeds),
      "banks",
    );
    // Renamed so that no id minted in this run (s<round>_<k>) can collide with one from the shipping run.
    const rename = (id: string) => `shipped_${id}`;
    const out = entries.map((entry) =>
      event({
        schemaVersion: 1,
        type: "add",
        round: 0,
        entry: { ...entry, id: rename(entry.id), parents: entry.parents.map(rename), generation: 0 },
        reason: "shipped bank",
      }),
    );
    commit(level, 0, out, 0);
  };
  /**
   * Records lost after their round's update was committed (episodes.jsonl deleted or cut by hand): replayed,
   * each with the bank of its own round, and said so. An offline trajectory read from a file is read again.
   */
  const lost = cfg.levels.flatMap((level) => {
    const p = plan.get(level)!;
    const offline = log.done.has(updateKey(level, 0)) ? p.offline.map((seed) => episodeId("offline", level, 0, seed)) : [];
    const cited = (events.get(level) ?? []).filter((e) => e.round === 0).flatMap((e) => e.evidence.filter((id) => id.startsWith(`offline/${level}/file`)));
    const stream = p.rounds.flatMap((seeds, i) => (log.done.has(updateKey(level, i + 1)) ? seeds.map((seed) => episodeId("stream", level, i + 1, seed)) : []));
    return [...offline, ...new Set(cited), ...stream].filter((id) => !records.has(id));
  });
  if (lost.length) {
    ports.log?.(
      `resume: episodes.jsonl lacks ${lost.length} episode(s) whose round's bank update is already committed (${lost.slice(0, 3).join(", ")}${lost.length > 3 ? ", …" : ""}); ` +
        `replaying each with the bank of its own round${cfg.agent === "heuristic" ? "" : " (a model replays a new episode, not the one the bank learned from)"}`,
    );
  }
  const refetch = (level: string) => {
    try {
      fromFiles(level);
    } catch (e) {
      const missing = lost.filter((id) => id.startsWith(`offline/${level}/file`));
      throw e instanceof ConfigError
        ? new ConfigError(
            `${level}: episodes.jsonl lacks the offline trajectories round 0 was distilled from (${missing.join(", ")}) and they cannot be read again (${e.message}); restore episodes.jsonl from a copy, or make offline.trajectories readable and resume again`,
          )
        : e;
    }
  };

  progress("offline", 0);
  await playOffline();
  for (const level of cfg.levels) {
    if (log.done.has(updateKey(level, 0))) {
      if (!playsOffline(level) && lost.some((id) => id.startsWith(`offline/${level}/file`))) refetch(level);
      continue;
    }
    if (!usesBank(cfg) || cfg.init === "online") await update(level, 0, []);
    else if (cfg.offline.banks) ship(level);
    else await update(level, 0, cfg.offline.trajectories ? fromFiles(level) : offlineRecords(level));
  }
  snapshot(0);

  for (let round = 1; round <= cfg.rounds; round++) {
    const jobs = cfg.levels.flatMap((level) =>
      plan.get(level)!.rounds[round - 1]!.map((seed): Job => ({ phase: "stream", level, round, seed, agent: cfg.agent, bankRound: round - 1 })),
    );
    await mapLimit(jobs, inFlight, play);
    signal?.throwIfAborted();
    for (const level of cfg.levels) {
      const batch = plan.get(level)!.rounds[round - 1]!.map((seed) => records.get(episodeId("stream", level, round, seed))!);
      await update(level, round, batch);
    }
    snapshot(round);
    writeMetrics();
    await ports.afterRound?.(round, events);
  }
  return writeMetrics();
};
