import { ConfigError } from "../../../src/errors.ts";

/**
 * Which source frames of an episode become output frames (docs/spec/reward-search.md §2, frames): the source is
 * one frame per env state (after reset, then after each step, 1/dt per second), sampled at the centre of each
 * interval of 1/fps seconds as Prompt-to-Policy does (p2p/inference/vlm.py, _center_of_interval_indices).
 */
/** At most `max` indices, from the start. */
export const sampledIndices = (sourceFrames: number, dt: number, fps: number, max = Number.POSITIVE_INFINITY): number[] => {
  if (!Number.isInteger(sourceFrames) || sourceFrames < 1) throw new ConfigError(`frames: sourceFrames must be a positive integer, got ${sourceFrames}`);
  if (!(dt > 0) || !Number.isFinite(dt)) throw new ConfigError(`frames: dt must be a positive number of seconds, got ${dt}`);
  if (!(fps > 0) || !Number.isFinite(fps)) throw new ConfigError(`frames: fps must be positive, got ${fps}`);
  const sourceFps = 1 / dt;
  const samples = Math.min(max, Math.max(1, Math.floor((sourceFrames / sourceFps) * fps)));
  const interval = sourceFps / fps;
  return Array.from({ length: samples }, (_, i) => Math.min(Math.floor(i * interval + (interval - 1) / 2), sourceFrames - 1)).map((k) => Math.max(0, k));
};
