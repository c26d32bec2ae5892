import type { UsageTotal } from "../llm/accounting.ts";
import { UsageTally } from "../llm/accounting.ts";
import type { Bank, BankEvent } from "../store/bank.ts";
import type { EpisodeRecord, UsageLine } from "../store/run-records.ts";
import type { RunConfig } from "./run-config.ts";
import { mean } from "../util/stats.ts";
import { runProblems } from "./run-health.ts";

/** metrics.json (docs/spec/method.md §10): recomputed from the records after every round, so it is always what the files say. */

const r3 = (v: number) => Math.round(v * 1000) / 1000;

const summary = (eps: readonly EpisodeRecord[]) => ({
  episodes: eps.length,
  successes: eps.filter((e) => e.trajectory.success).length,
  successRate: r3(eps.length ? eps.filter((e) => e.trajectory.success).length / eps.length : 0),
  meanTurns: r3(eps.length ? mean(eps.map((e) => e.trajectory.turns)) : 0),
});

const usageTotal = (lines: readonly UsageLine[]): UsageTotal => {
  const t = new UsageTally();
  lines.forEach((l) => t.add(l));
  return t.total();
};

export interface MetricsInput {
  runId: string;
  config: RunConfig;
  episodes: readonly EpisodeRecord[];
  usage: readonly UsageLine[];
  /** Each level's bank after every completed round (index = round). */
  banks: ReadonlyMap<string, readonly Bank[]>;
  bankMs: number;
  /** Every level's bank events, to tell an evolver that failed every update (run-health.ts). */
  events?: ReadonlyMap<string, readonly BankEvent[]>;
}

export const computeMetrics = (m: MetricsInput) => {
  const stream = m.episodes.filter((e) => e.phase === "stream");
  const levels = Object.fromEntries(
    m.config.levels.map((level) => {
      const eps = stream.filter((e) => e.level === level).sort((a, b) => a.round - b.round || a.seed - b.seed);
      let wins = 0;
      const cumulative = eps.map((e, i) => {
        wins += e.trajectory.success ? 1 : 0;
        return { round: e.round, seed: e.seed, success: e.trajectory.success, turns: e.trajectory.turns, cumulativeSuccessRate: r3(wins / (i + 1)) };
      });
      const rounds = [...new Set(eps.map((e) => e.round))].map((round) => {
        const inRound = eps.filter((e) => e.round === round);
        const bank = m.banks.get(level)?.[round - 1]; // the bank the round played with
        return {
          round,
          ...summary(inRound),
          meanR: r3(inRound.length ? mean(inRound.map((e) => e.r)) : 0),
          "bank/skills": bank?.skills.length ?? 0,
          "bank/mistakes": bank?.mistakes.length ?? 0,
        };
      });
      const final = m.banks.get(level)?.at(-1);
      return [
        level,
        {
          ...summary(eps),
          offline: summary(m.episodes.filter((e) => e.phase === "offline" && e.level === level)),
          finalBank: { skills: final?.skills.length ?? 0, mistakes: final?.mistakes.length ?? 0 },
          cumulative,
          rounds,
        },
      ];
    }),
  );
  const played = m.episodes.filter((e) => e.phase !== "eval");
  const simulationMs = played.reduce((s, e) => s + e.trajectory.steps.reduce((t, x) => t + x.ms, 0), 0);
  const episodeMs = played.reduce((s, e) => s + e.trajectory.wallMs, 0);
  const total = usageTotal(m.usage);
  const problems = runProblems({ config: m.config, episodes: m.episodes, usage: total, ...(m.events ? { events: m.events } : {}) });
  return {
    schemaVersion: 1,
    run: m.runId,
    agent: m.config.agent === "heuristic" ? "heuristic (no LLM)" : m.config.agent,
    models: { actor: [...new Set(played.map((e) => e.trajectory.model))] },
    method: { init: m.config.init, update: m.config.update, evolver: m.config.evolver === "heuristic" ? "heuristic (no LLM)" : "llm" },
    overall: summary(stream),
    levels,
    usage: {
      actor: usageTotal(m.usage.filter((u) => u.role === "actor")),
      evolver: usageTotal(m.usage.filter((u) => u.role === "evolver")),
      total,
    },
    time: { simulationMs: Math.round(simulationMs), agentMs: Math.round(episodeMs - simulationMs), bankMs: Math.round(m.bankMs) },
    // Only when there are any: a sound run's metrics.json is as it always was.
    ...(problems.length ? { problems } : {}),
  };
};
export type Metrics = ReturnType<typeof computeMetrics>;
