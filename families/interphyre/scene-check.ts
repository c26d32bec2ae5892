import { z } from "zod";
import { ConfigError } from "../../src/errors.ts";
import { DEFAULT_HORIZON_STEPS, RADIUS_MAX, RADIUS_MIN } from "./world/constants.ts";
import type { CreateEngine } from "./world/engine.ts";
import { rollout } from "./world/rollout.ts";
import { parseScene } from "./world/scene.ts";
import { getLevel } from "./levels/index.ts";

/** The fixtures' file format: Interphyre scene dicts with one known solution each. */
const Solution = z.union([z.tuple([z.number(), z.number(), z.number()]), z.tuple([z.tuple([z.number(), z.number(), z.number()])]).transform(([s]) => s)]);
export const SceneFile = z.object({
  level: z.string(),
  entries: z.array(z.object({ seed: z.number().int(), scene: z.record(z.string(), z.unknown()), solution: Solution })),
});
export type SceneFile = z.infer<typeof SceneFile>;

export const parseSceneFile = (raw: unknown, where: string): SceneFile => {
  const parsed = SceneFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${where}: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  getLevel(parsed.data.level);
  return parsed.data;
};

export interface SceneCheckReport {
  total: number;
  reproduced: number;
  levels: Record<string, { total: number; reproduced: number; failedSeeds: number[] }>;
}

/**
 * Places each stored solution in our world and checks the level's goal within `steps` (docs/spec/interphyre.md §6.1):
 * the share reproduced measures how faithfully hexa's physics follows Interphyre's. The radius is clipped
 * as Interphyre clips it; the placement is simulated as Interphyre verified it.
 */
export const checkScenes = (
  files: SceneFile[],
  steps = DEFAULT_HORIZON_STEPS,
  onEntry?: (level: string, done: number, total: number) => void,
  engine?: CreateEngine,
): SceneCheckReport => {
  const report: SceneCheckReport = { total: 0, reproduced: 0, levels: {} };
  for (const file of files) {
    const def = getLevel(file.level);
    const row = (report.levels[def.id] ??= { total: 0, reproduced: 0, failedSeeds: [] });
    file.entries.forEach((entry, i) => {
      const scene = parseScene(entry.scene, `${file.level}[seed ${entry.seed}].scene`);
      const [x, y, r] = entry.solution;
      const radius = Math.min(RADIUS_MAX, Math.max(RADIUS_MIN, r));
      const result = rollout({ scene, goal: def.goal, action: { x, y, radius } }, { engine, horizon: steps, recordContacts: false, stopWhenSettled: true });
      row.total++;
      report.total++;
      if (result.success) {
        row.reproduced++;
        report.reproduced++;
      } else row.failedSeeds.push(entry.seed);
      onEntry?.(def.id, i + 1, file.entries.length);
    });
  }
  return report;
};
