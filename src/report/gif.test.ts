import { describe, expect, it } from "vitest";
import { decodeGif } from "../../test/support/gif-decode.ts";
import { encodeGif, gifPalette, tint, type Rgb } from "./gif.ts";
import type { Raster } from "./png.ts";

const COLOURS: Record<string, Rgb> = { green: [32, 201, 162], red: [235, 82, 52], purple: [81, 56, 150], black: [0, 0, 0] };
const PALETTE = gifPalette([255, 255, 255], Object.values(COLOURS));

const W = 8;
const H = 6;
/** A white raster with one coloured pixel per entry of `dots`. */
const raster = (dots: [number, number, Rgb][]): Raster => {
  const pixels = new Uint8Array(W * H * 4).fill(255);
  for (const [x, y, c] of dots) pixels.set([...c, 255], (y * W + x) * 4);
  return { width: W, height: H, pixels };
};

describe("encodeGif", () => {
  it("writes every frame, keeps the render colours exact and composites unchanged pixels correctly", () => {
    const frames = [
      raster([
        [1, 1, COLOURS.green!],
        [5, 4, COLOURS.black!],
      ]),
      raster([
        [2, 1, COLOURS.green!],
        [5, 4, COLOURS.black!],
      ]),
      raster([
        [3, 1, tint(COLOURS.red!, 0.5)],
        [5, 4, COLOURS.purple!],
      ]),
    ];
    const gif = encodeGif(
      frames.map((r, i) => ({ raster: r, delayMs: 50 + 100 * i })),
      PALETTE,
    );
    expect(gif.frames).toBe(3);
    const decoded = decodeGif(gif.bytes);
    expect([decoded.width, decoded.height, decoded.loop]).toEqual([W, H, 0]);
    expect(decoded.frames.map((f) => f.delayCs)).toEqual([5, 15, 25]);
    decoded.frames.forEach((f, i) => expect(f.rgba).toEqual(frames[i]!.pixels));
  });

  it("refuses frames of different sizes", () => {
    const other: Raster = { width: 4, height: 4, pixels: new Uint8Array(64).fill(255) };
    expect(() =>
      encodeGif(
        [
          { raster: raster([]), delayMs: 10 },
          { raster: other, delayMs: 10 },
        ],
        PALETTE,
      ),
    ).toThrow(/frame 1 is 4×4, the first is 8×6/);
  });
});
