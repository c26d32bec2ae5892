import { ConfigError } from "../errors.ts";
import type { LevelFamily } from "../family/family.ts";
import { usageRecord } from "../llm/accounting.ts";
import type { AssistantTurn } from "../llm/chat-model.ts";
import type { RoleModel } from "../llm/ask.ts";
import { applyEvent, EMPTY_BANK, type Bank, type BankEvent } from "../store/bank.ts";
import { episodeId } from "../store/run-dir.ts";
import type { EpisodeRecord } from "../store/run-records.ts";
import { updateBank } from "./bank-update.ts";
import { episodeRecord } from "./episode-record.ts";
import { playEpisode } from "./play.ts";
import type { RunAgent, RunConfig } from "./run-config.ts";
import { schedule } from "./schedule.ts";

export interface ReferencePorts {
  family: LevelFamily;
  actorModel?: RoleModel;
  evolverModel?: RoleModel;
  now: () => number;
}

/** A run as the method defines it: every episode in the order it is recorded, every bank update in commit order. */
export interface ReferenceRun {
  episodes: EpisodeRecord[];
  updates: { level: string; round: number; events: BankEvent[] }[];
}

/**
 * The HExA method in one place (docs/spec/method.md §5, §10), one step at a time: read this first. Round 0 plays
 * each level's offline episodes with no bank and distils them into its first bank; then each round plays x
 * episodes per level with the bank of the level's previous round, and the evolver updates that level's bank
 * from them. `runLoop` (run-loop.ts) computes the same run concurrently, resumably, writing the run directory;
 * reference-loop.test.ts holds it to this. Left out here: resume, progress, usage and spend, backends, offline files.
 */
export const referenceLoop = async (cfg: RunConfig, ports: ReferencePorts): Promise<ReferenceRun> => {
  if (cfg.offline.banks || cfg.offline.trajectories)
    throw new ConfigError("offline: the reference loop plays its offline episodes; it reads no banks or trajectories");
  const { family, actorModel, evolverModel, now } = ports;
  const plan = schedule(cfg, family);
  const banks = new Map<string, Bank>(cfg.levels.map((level) => [level, EMPTY_BANK]));
  const run: ReferenceRun = { episodes: [], updates: [] };

  /** One episode; the actor's prompt holds the retriever's top-M skills and top-N mistakes of the level's bank. */
  const play = async (level: string, round: number, seed: number): Promise<EpisodeRecord> => {
    const [phase, bankRound] = round === 0 ? (["offline", null] as const) : (["stream", round - 1] as const);
    // Offline episodes play with no bank: the heuristic, or ReAct for a model-driven run (method.md §5).
    const agent: RunAgent = round > 0 ? cfg.agent : cfg.agent === "heuristic" ? "heuristic" : "react";
    const bank = round === 0 ? EMPTY_BANK : banks.get(level)!;
    const allowance = family.search?.allowanceOf?.({
      config: cfg,
      level,
      seed,
      phases: plan.get(level)!,
      earlier: run.episodes.filter((e) => e.level === level && e.round < round),
    });
    const model = agent === "heuristic" ? undefined : actorModel;
    const { trajectory, retrieved } = await playEpisode(family, {
      ...{ task: { level, seed, ...(allowance === undefined ? {} : { allowance }) }, agent, config: cfg, bank, now },
      ...{ ...(model ? { model } : {}), costOf: (turn: AssistantTurn) => usageRecord("actor", turn, cfg.llm.prices).costUsd },
    });
    // The record adds r(τ) and its category (method.md §2): what the evolver reads.
    const record = episodeRecord({ id: episodeId(phase, level, round, seed), phase, level, round, seed, bankRound, retrieved, trajectory });
    run.episodes.push(record);
    return record;
  };

  /** The evolver distils, evolves or replaces the level's bank from its batch, when `updatesAt` says it may. */
  const update = async (level: string, round: number, batch: readonly EpisodeRecord[]): Promise<void> => {
    const labelled = batch.map(({ id, trajectory, r, category }) => ({ id, trajectory, r, category }));
    const bank = banks.get(level)!;
    const events = await updateBank({ config: cfg, family, level, round, bank, labelled, ...(evolverModel ? { evolverModel } : {}) });
    banks.set(level, events.reduce(applyEvent, bank));
    run.updates.push({ level, round, events });
  };

  for (let round = 0; round <= cfg.rounds; round++) {
    // Play: each level's batch (round 0: its offline seeds), every episode with the bank of the level's last update.
    const batches = new Map<string, EpisodeRecord[]>();
    for (const level of cfg.levels) {
      const batch: EpisodeRecord[] = [];
      for (const seed of round === 0 ? plan.get(level)!.offline : plan.get(level)!.rounds[round - 1]!) batch.push(await play(level, round, seed));
      batches.set(level, batch);
    }
    // Update: each level's bank from its own batch; the next round's episodes retrieve from the new bank.
    for (const level of cfg.levels) await update(level, round, batches.get(level)!);
  }
  return run;
};
