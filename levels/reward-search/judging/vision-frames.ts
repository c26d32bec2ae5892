/**
 * Which frames a vision judge sends, and in what form (docs/guides/judging.md, "Vision judge"): frames are
 * ordered `image_url` parts, each after a line with its number and time, fitted to the images a server takes in
 * one request by even subsampling (the first and the last frame always kept). A holistic verdict needs the whole
 * episode in one view, so a long episode is thinned rather than split over several requests.
 */
import type { ContentPart } from "../../../src/llm/chat-model.ts";
import { mediaPart } from "../../../src/llm/content-parts.ts";
import { ConfigError } from "../../../src/errors.ts";
import type { EpisodeFrames } from "../pictures/episode-frames.ts";

/** One rendered frame: a PNG (or JPEG) and its simulated time since reset, in seconds. */
export interface TimedFrame {
  image: Buffer;
  t: number;
  /** Defaults to PNG. */
  mime?: "image/png" | "image/jpeg";
}

/** Frames and, when asked, the motion trail frame for frame (pictures/episode-frames.ts). */
export interface JudgedFrames {
  frames: readonly TimedFrame[];
  trail?: readonly TimedFrame[];
}

/** Rendered frames (pictures/episode-frames.ts) as a judge takes them: each PNG with its time, the trail likewise. */
export const judgedFrames = (r: EpisodeFrames): JudgedFrames => {
  const timed = (pngs: readonly Buffer[]) => pngs.map((image, i) => ({ image, t: r.times[i]! }));
  return { frames: timed(r.frames), ...(r.trail ? { trail: timed(r.trail) } : {}) };
};

/** Bounds on what one judgment takes in. */
const MAX_FRAMES_IN = 2000;
const MAX_FRAME_BYTES = 8 << 20;

/** `count` indices of `n` spread evenly, the first and the last included; all of them when n ≤ count. */
const evenIndices = (n: number, count: number): number[] => {
  if (n <= count) return Array.from({ length: n }, (_, i) => i);
  if (count <= 1) return [0];
  return Array.from({ length: count }, (_, i) => Math.round((i * (n - 1)) / (count - 1)));
};

/** Each frame a bounded image, the times finite and in order. */
const checkSeries = (series: readonly TimedFrame[], where: string): void =>
  series.forEach((f, i) => {
    if (f.image.byteLength === 0 || f.image.byteLength > MAX_FRAME_BYTES)
      throw new ConfigError(`${where}[${i}].image: ${f.image.byteLength} bytes; a frame is 1 byte to ${MAX_FRAME_BYTES}`);
    if (!Number.isFinite(f.t) || (i > 0 && f.t < series[i - 1]!.t))
      throw new ConfigError(`${where}[${i}].t: ${f.t} is not a time at or after the frame before; give frames in time order`);
  });

/** The frames refused with the field named when they cannot be judged: none, too many, too large, or out of time order. */
export const checkFrames = (f: JudgedFrames, where: string): void => {
  const { frames, trail } = f;
  if (frames.length === 0) throw new ConfigError(`${where}.frames: no frames (got 0); render the episode first`);
  if (frames.length > MAX_FRAMES_IN) throw new ConfigError(`${where}.frames: ${frames.length} frames, more than ${MAX_FRAMES_IN}; render at a lower rate`);
  if (trail && trail.length !== frames.length)
    throw new ConfigError(`${where}.trail: ${trail.length} trail frames for ${frames.length} frames; render them together (trail: true)`);
  checkSeries(frames, `${where}.frames`);
  if (trail) checkSeries(trail, `${where}.trail`);
};

const seconds = (t: number) => `${Number(t.toFixed(2))} s`;

/** A sequence as parts: a heading, then per frame a line `Frame k (t = … s):` and the image. */
export const sequenceParts = (heading: string, frames: readonly TimedFrame[]): ContentPart[] => [
  { type: "text", text: heading },
  ...frames.flatMap((f, i): ContentPart[] => [{ type: "text", text: `\nFrame ${i + 1} (t = ${seconds(f.t)}):` }, mediaPart(f.image, f.mime ?? "image/png")]),
];

/** The frames sent: each sequence thinned to its share of `maxImages` (the trail, when sent, takes half). */
export const fitFrames = (f: JudgedFrames, maxImages: number, withTrail: boolean): { frames: TimedFrame[]; trail?: TimedFrame[] } => {
  const sendTrail = withTrail && f.trail !== undefined && maxImages >= 2;
  const budget = sendTrail ? Math.floor(maxImages / 2) : maxImages;
  const picked = evenIndices(f.frames.length, budget);
  return {
    frames: picked.map((i) => f.frames[i]!),
    ...(sendTrail ? { trail: picked.map((i) => f.trail![i]!) } : {}),
  };
};

/** The frames whose times lie in [fromS, toS]; refused, naming the window, when none do. */
export const framesBetween = (frames: readonly TimedFrame[], fromS: number, toS: number, where: string): TimedFrame[] => {
  const inside = frames.filter((f) => f.t >= fromS - 1e-9 && f.t <= toS + 1e-9);
  if (!(fromS <= toS) || inside.length === 0) {
    const span = `${seconds(frames[0]?.t ?? 0)} to ${seconds(frames.at(-1)?.t ?? 0)}`;
    throw new ConfigError(`${where}: no frame between ${fromS} and ${toS} s (got frames from ${span}); ask about a window inside the episode`);
  }
  return inside;
};
