import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FrameSeries, framesToMp4, writeFrames } from "./frame-files.ts";

/**
 * An MP4 clip of PNG frames, in memory: what a vision judge sends as one `video_url` part where the server takes
 * video (docs/guides/judging.md, "Vision judge"). Made by Debian's ffmpeg in a temporary folder, removed after.
 */
export const framesClip = async (pngs: readonly Buffer[], fps: number, series: FrameSeries = "frame"): Promise<Buffer> => {
  const dir = mkdtempSync(join(tmpdir(), "hexa-clip-"));
  try {
    writeFrames(dir, pngs, series);
    return readFileSync(await framesToMp4(dir, fps, series));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
