import type { PhysicsHost } from "./physics-host.ts";
import { type SceneCheckReport, type SceneFile, sceneReport } from "./scene-check.ts";
import type { EngineName } from "./world/engines.ts";

/** Scenes per request: small enough to keep every worker busy to the end, large enough that messages cost nothing. */
const CHUNK = 25;

/**
 * checkScenes (scene-check.ts) spread over the physics host's workers, one request per slice of a file, as
 * many in flight as the host has workers: the same report as in one thread, since each rollout is
 * deterministic and the report is assembled in file order. `onEntry` counts entries as their slices finish.
 */
export const checkScenesInWorkers = async (
  host: PhysicsHost,
  files: readonly SceneFile[],
  steps: number,
  engine: EngineName,
  onEntry?: (level: string, done: number, total: number) => void,
): Promise<SceneCheckReport> => {
  const outcomes = files.map((f) => new Array<boolean>(f.entries.length));
  const slices = files.flatMap((file, f) =>
    Array.from({ length: Math.ceil(file.entries.length / CHUNK) }, (_, k) => ({ f, from: k * CHUNK, entries: file.entries.slice(k * CHUNK, (k + 1) * CHUNK) })),
  );
  const done = files.map(() => 0);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < slices.length) {
      const s = slices[next++]!;
      const level = files[s.f]!.level;
      const ok = await host.checkScenes({ level, entries: s.entries, steps, engine });
      ok.forEach((v, i) => (outcomes[s.f]![s.from + i] = v));
      done[s.f]! += ok.length;
      onEntry?.(level, done[s.f]!, files[s.f]!.entries.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(host.maxWorkers, slices.length) }, lane));
  return sceneReport(files, outcomes);
};
