import { ConfigError } from "../errors.ts";
import { episodeId, updateKey } from "../store/run-dir.ts";
import type { LoopContext } from "./loop-context.ts";
import { offlineFromFiles } from "./offline-inputs.ts";

/**
 * What a resume repairs (docs/spec/method.md §10). Each level's progress is read from the files on its own, so
 * levels left at different rounds by a crash each continue from their own: finished episodes and committed
 * updates are skipped, an update cut short is redone. Records lost after their round's update was committed
 * (episodes.jsonl deleted or cut by hand) are found here and replayed, each with the bank of its own round; an
 * offline trajectory read from a file is read again.
 */
export const lostRecords = (ctx: LoopContext): string[] =>
  ctx.cfg.levels.flatMap((level) => {
    const { done, records } = ctx.state;
    const p = ctx.plan.get(level)!;
    const offline = done.has(updateKey(level, 0)) ? p.offline.map((seed) => episodeId("offline", level, 0, seed)) : [];
    const cited = ctx.state
      .eventsOf(level)
      .filter((e) => e.round === 0)
      .flatMap((e) => e.evidence.filter((id) => id.startsWith(`offline/${level}/file`)));
    const stream = p.rounds.flatMap((seeds, i) => (done.has(updateKey(level, i + 1)) ? seeds.map((seed) => episodeId("stream", level, i + 1, seed)) : []));
    return [...offline, ...new Set(cited), ...stream].filter((id) => !records.has(id));
  });

/** Says which lost records are replayed, and that a model replays a new episode, not the one the bank learned from. */
export const warnLost = (ctx: LoopContext, lost: readonly string[]): void => {
  if (!lost.length) return;
  ctx.ports.log?.(
    `resume: episodes.jsonl lacks ${lost.length} episode(s) whose round's bank update is already committed (${lost.slice(0, 3).join(", ")}${lost.length > 3 ? ", …" : ""}); ` +
      `replaying each with the bank of its own round${ctx.cfg.agent === "heuristic" ? "" : " (a model replays a new episode, not the one the bank learned from)"}`,
  );
};

/** Whether a level's committed round 0 cites file trajectories that episodes.jsonl lost. */
export const lostFileRecords = (lost: readonly string[], level: string): boolean => lost.some((id) => id.startsWith(`offline/${level}/file`));

/** Reads a level's lost file trajectories again, or refuses, naming what is missing and what to do. */
export const refetchOffline = async (ctx: LoopContext, level: string, lost: readonly string[]): Promise<void> => {
  try {
    await offlineFromFiles(ctx, level);
  } catch (e) {
    const missing = lost.filter((id) => id.startsWith(`offline/${level}/file`));
    throw e instanceof ConfigError
      ? new ConfigError(
          `${level}: episodes.jsonl lacks the offline trajectories round 0 was distilled from (${missing.join(", ")}) and they cannot be read again (${e.message}); restore episodes.jsonl from a copy, or make offline.trajectories readable and resume again`,
        )
      : e;
  }
};
