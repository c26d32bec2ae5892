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

/** One stored solution of a scene file. */
export type SceneEntry = SceneFile["entries"][number];

/**
 * Whether one stored solution reaches the level's goal within `steps` (docs/spec/interphyre.md §6.1), placed
 * in our world: the radius clipped as Interphyre clips it, the placement simulated as Interphyre verified it.
 */
export const reproduces = (level: string, entry: SceneEntry, steps: number, engine?: CreateEngine): boolean => {
  const scene = parseScene(entry.scene, `${level}[seed ${entry.seed}].scene`);
  const [x, y, r] = entry.solution;
  const radius = Math.min(RADIUS_MAX, Math.max(RADIUS_MIN, r));
  return rollout({ scene, goal: getLevel(level).goal, action: { x, y, radius } }, { engine, horizon: steps, recordContacts: false, stopWhenSettled: true })
    .success;
};

/** The report of scene files from each entry's outcome (`outcomes[f][i]`: entry i of file f reproduced), in file order. */
export const sceneReport = (files: readonly SceneFile[], outcomes: readonly (readonly boolean[])[]): SceneCheckReport => {
  const report: SceneCheckReport = { total: 0, reproduced: 0, levels: {} };
  files.forEach((file, f) => {
    const row = (report.levels[getLevel(file.level).id] ??= { total: 0, reproduced: 0, failedSeeds: [] });
    file.entries.forEach((entry, i) => {
      row.total++;
      report.total++;
      if (outcomes[f]![i]) {
        row.reproduced++;
        report.reproduced++;
      } else row.failedSeeds.push(entry.seed);
    });
  });
  return report;
};

/**
 * Places each stored solution in our world and checks the level's goal within `steps`, in this thread: the
 * share reproduced measures how faithfully hexa's physics follows Interphyre's. scene-check-pool.ts spreads
 * the same work over the physics workers.
 */
export const checkScenes = (
  files: SceneFile[],
  steps = DEFAULT_HORIZON_STEPS,
  onEntry?: (level: string, done: number, total: number) => void,
  engine?: CreateEngine,
): SceneCheckReport =>
  sceneReport(
    files,
    files.map((file) =>
      file.entries.map((entry, i) => {
        const ok = reproduces(file.level, entry, steps, engine);
        onEntry?.(file.level, i + 1, file.entries.length);
        return ok;
      }),
    ),
  );
