import { labelTrajectories } from "../../agents/evolver-labels.ts";
import { ConfigError } from "../errors.ts";
import type { ChatModel } from "../llm/chat-model.ts";
import { usageRecord } from "../llm/accounting.ts";
import { foldEvents } from "../store/bank.ts";
import { episodeId, type RunDir } from "../store/run-dir.ts";
import type { EpisodeRecord } from "../store/run-records.ts";
import type { LevelFamily } from "./family.ts";
import { mapLimit } from "./pool.ts";
import type { RunConfig } from "./run-config.ts";
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

/** The held-out seeds per level: the given ones (refused if the run learned from them), else the next `count` unseen. */
export const heldOutSeeds = (cfg: RunConfig, family: LevelFamily, opts: { seeds?: number[]; count: number }): Map<string, number[]> => {
  const plan = schedule(cfg, family);
  return new Map(
    cfg.levels.map((level) => {
      const p = plan.get(level)!;
      if (!opts.seeds) {
        if (p.heldOut.length === 0) throw new ConfigError(`--count: ${level} has no vetted seeds left outside the learning stream; pass --seeds`);
        return [level, p.heldOut.slice(0, opts.count)];
      }
      const seen = opts.seeds.filter((s) => p.seen.has(s));
      if (seen.length) throw new ConfigError(`--seeds: ${seen.join(", ")} were seen while learning on ${level}; held-out seeds must be disjoint from the stream and the offline seeds`);
      return [level, opts.seeds];
    }),
  );
};

/**
 * Held-out evaluation (method.md §9): the frozen final bank on seeds the run never saw, beside the cumulative
 * stream figure. Writes every episode to `evalFile`; the run's own files are only read.
 */
export const evaluateRun = async (
  cfg: RunConfig,
  ports: { family: LevelFamily; dir: RunDir; actorModel?: ChatModel; now: () => number; evalFile: string; onEpisode?: (r: EpisodeRecord) => void },
  seeds: Map<string, number[]>,
): Promise<EvalRow[]> => {
  const log = ports.dir.bankLog({ repair: false });
  const records = ports.dir.episodes({ repair: false });
  const finalRound = cfg.rounds;
  const jobs = cfg.levels.flatMap((level) => seeds.get(level)!.map((seed) => ({ level, seed })));
  const done = await mapLimit(jobs, cfg.concurrency, async ({ level, seed }) => {
    const bank = foldEvents(log.events.get(level) ?? []);
    const { trajectory, retrieved } = await ports.family.play({
      task: { level, seed },
      agent: cfg.agent,
      config: cfg,
      bank,
      ...(ports.actorModel ? { model: ports.actorModel } : {}),
      costOf: (turn) => usageRecord("actor", turn, cfg.llm.prices).costUsd,
      now: ports.now,
    });
    const id = episodeId("eval", level, finalRound + 1, seed);
    const [l] = labelTrajectories([trajectory], [id]);
    const rec: EpisodeRecord = { schemaVersion: 1, id, phase: "eval", level, round: finalRound + 1, seed, r: l!.r, category: l!.category, bankRound: finalRound, retrieved, trajectory };
    ports.dir.appendEval(ports.evalFile, rec);
    ports.onEpisode?.(rec);
    return rec;
  });
  return cfg.levels.map((level) => ({
    level,
    stream: stats(records.filter((e) => e.phase === "stream" && e.level === level)),
    heldOut: stats(done.filter((e) => e.level === level)),
    seeds: seeds.get(level)!,
  }));
};
