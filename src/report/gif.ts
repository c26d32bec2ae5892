import { createRequire } from "node:module";
import { InvariantError } from "../errors.ts";
import type { Raster } from "./png.ts";

/**
 * Animated GIFs, gifenc's one home (docs/spec/style.md). The palette is fixed, not quantised per frame: a
 * picture's colours are known, so each is kept exact, and its tints toward white cover anti-aliased edges,
 * thin lines and fading trails. A frame stores only the pixels that changed since the previous one (the rest
 * is the transparent index over an undisposed frame), which keeps long rollouts small.
 */

/** The part of gifenc 1.0.3 used here; it ships no types. */
interface GifEncoder {
  writeFrame(
    index: Uint8Array,
    width: number,
    height: number,
    options: { palette?: number[][]; delay: number; repeat?: number; transparent?: boolean; transparentIndex?: number; dispose?: number },
  ): void;
  finish(): void;
  bytes(): Uint8Array;
}
interface Gifenc {
  GIFEncoder(): GifEncoder;
  applyPalette(rgba: Uint8Array, palette: number[][]): Uint8Array;
}
// gifenc is CommonJS whose `default` is GIFEncoder alone; `require` gives the same object under Node, tsx and vitest.
const gifenc = createRequire(import.meta.url)("gifenc") as Gifenc;

/** Tints per colour, from the colour itself toward white. */
const TINT_LEVELS = 24;

export type Rgb = readonly [number, number, number];

/** A colour moved toward white by t ∈ [0, 1]. */
export const tint = ([r, g, b]: Rgb, t: number): Rgb => [Math.round(r + (255 - r) * t), Math.round(g + (255 - g) * t), Math.round(b + (255 - b) * t)];

/** A GIF palette: the background, then each colour with its tints toward white. */
export const gifPalette = (background: Rgb, colours: readonly Rgb[]): Rgb[] => {
  const out: Rgb[] = [background];
  for (const colour of colours) {
    for (let i = 0; i < TINT_LEVELS; i++) out.push(tint(colour, i / TINT_LEVELS));
  }
  return out;
};

export interface GifFrame {
  raster: Raster;
  /** How long the frame shows, in milliseconds (GIF stores hundredths of a second). */
  delayMs: number;
}

export interface Gif {
  bytes: Uint8Array;
  frames: number;
}

/**
 * Frames, all the same size, → a GIF that loops forever. Frames are taken one at a time, so a long rollout
 * never holds more than two rasters.
 */
export const encodeGif = (frames: Iterable<GifFrame>, palette: readonly Rgb[]): Gif => {
  // The last slot, outside the colours: "unchanged since the previous frame".
  const UNCHANGED = palette.length;
  const TABLE = [...palette, [255, 0, 255] as const].map((c) => [...c]);
  const encoder = gifenc.GIFEncoder();
  const colours = TABLE.slice(0, palette.length);
  let previous: Uint8Array | undefined;
  let width = 0;
  let height = 0;
  let count = 0;
  for (const { raster, delayMs } of frames) {
    const index = gifenc.applyPalette(raster.pixels, colours);
    if (previous === undefined) {
      ({ width, height } = raster);
      encoder.writeFrame(index, width, height, { palette: TABLE, delay: delayMs, repeat: 0 });
    } else {
      if (raster.width !== width || raster.height !== height) {
        throw new InvariantError(`encodeGif: frame ${count} is ${raster.width}×${raster.height}, the first is ${width}×${height}`);
      }
      const last = previous;
      const delta = index.map((v, p) => (v === last[p] ? UNCHANGED : v));
      encoder.writeFrame(delta, width, height, { delay: delayMs, transparent: true, transparentIndex: UNCHANGED, dispose: 1 });
    }
    previous = index;
    count++;
  }
  if (count === 0) throw new InvariantError("encodeGif: no frames to encode");
  encoder.finish();
  return { bytes: encoder.bytes(), frames: count };
};
