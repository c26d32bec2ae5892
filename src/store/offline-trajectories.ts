import { z } from "zod";
import { Trajectory } from "./trajectory.ts";
import { ConfigError } from "../errors.ts";
import { readJsonl } from "./jsonl.ts";
import { existsSync } from "node:fs";

/** A line of an offline-trajectories file: a bare trajectory, or an episode record from a run's episodes.jsonl. */
const Line = z.union([Trajectory, z.object({ trajectory: Trajectory }).transform((r) => r.trajectory)]);

/** Trajectories for the Offline / Off2On initialisation (docs/spec/method.md §5: skills/ or an earlier run), grouped by level. */
export const readOfflineTrajectories = (paths: readonly string[]): Map<string, Trajectory[]> => {
  const out = new Map<string, Trajectory[]>();
  for (const path of paths) {
    if (!existsSync(path))
      throw new ConfigError(
        `offline.trajectories: no such file (got ${JSON.stringify(path)}); give JSONL files of trajectories, e.g. skills/offline/<level>.heuristic.jsonl`,
      );
    for (const t of readJsonl(path, Line, { input: true })) out.set(t.level, [...(out.get(t.level) ?? []), t]);
  }
  return out;
};
