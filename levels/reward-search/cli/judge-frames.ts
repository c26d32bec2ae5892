/**
 * `hexa judge --frames`: the picked episodes' frames (480 × 480 at 10 fps) and motion trail, rendered from their
 * recorded trajectories into `<dir>/frames/<seed>/` (docs/guides/judging.md, "hexa judge"). Without Debian's
 * chromium nothing is rendered and a note says so.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CHROMIUM, JUDGED_FRAME_FPS, JUDGED_FRAME_SIZE, renderEpisodeFrames } from "../pictures/episode-frames.ts";
import { writeFrames } from "../pictures/frame-files.ts";
import { loadScene } from "../pictures/frame-scene.ts";
import { readTrajectoryFile } from "../trajectory/trajectory-file.ts";
import type { PickedEpisode } from "./judge-file.ts";

/** Render each distinct picked episode once; sets each pick's `frames` folder; returns notes to print and store. */
export async function renderPickedFrames(dir: string, picks: PickedEpisode[]): Promise<string[]> {
  if (!existsSync(CHROMIUM)) return [`--frames: no frames rendered: ${CHROMIUM} is missing (apt-get install -y chromium)`];
  const done = new Map<number, string>();
  for (const p of picks) {
    if (!done.has(p.seed)) {
      const record = readTrajectoryFile(join(dir, `trajectory-${p.seed}.bin`));
      const scene = await loadScene(record.header.model);
      const r = await renderEpisodeFrames(scene, record, { fps: JUDGED_FRAME_FPS, size: JUDGED_FRAME_SIZE, trail: true });
      const folder = join(dir, "frames", String(p.seed));
      writeFrames(folder, r.frames, "frame");
      writeFrames(folder, r.trail ?? [], "trail");
      done.set(p.seed, join("frames", String(p.seed)));
    }
    p.frames = done.get(p.seed);
  }
  return [];
}
