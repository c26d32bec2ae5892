import { encodeGif, type Gif, type GifFrame, gifPalette, type Rgb } from "../../../src/report/gif.ts";
import { svgToRaster } from "../../../src/report/png.ts";
import type { BodyFilm } from "./mujoco-film.ts";

/**
 * A BodyFilm as an animated GIF in real time: the camera follows the root body, the ground (side view: a line
 * with a tick every half metre; top view: a 1 m grid) slides past it, so forward motion shows even when the
 * body stays centred. No text is drawn (rasterising needs no fonts).
 */

const BACKGROUND: Rgb = [255, 255, 255];
const GROUND: Rgb = [110, 110, 110];
const BODY: Rgb = [52, 101, 164];
const WORLD: Rgb = [170, 170, 170];
const PALETTE = gifPalette(BACKGROUND, [GROUND, BODY, WORLD]);
const hex = ([r, g, b]: Rgb) => `#${[r, g, b].map((v) => v.toString(16).padStart(2, "0")).join("")}`;

export interface FilmGifOptions {
  /** Width and height in pixels (square: `hexa inspect` shows every picture 240 × 240). */
  width: number;
  /** How long the last frame stays up before the loop restarts. */
  holdLastMs: number;
}

/** The vertical extent every frame fits in (side view: ground to the highest point), with a margin. */
const extent = (film: BodyFilm): { lo: number; hi: number } => {
  let lo = 0,
    hi = 0.5;
  for (const f of film.frames) {
    for (let k = 0; k < f.segments.length; k += 2) {
      const y = f.segments[k + 1]!;
      if (y < lo) lo = y;
      if (y > hi) hi = y;
    }
  }
  return { lo: lo - 0.2, hi: hi + 0.3 };
};

/** One frame as SVG: width × width px, camera centred on the root body. */
const frameSvg = (film: BodyFilm, i: number, width: number): string => {
  const f = film.frames[i]!;
  const side = film.view === "side";
  const height = width;
  const { lo, hi } = side ? extent(film) : { lo: f.root[1] - 2, hi: f.root[1] + 2 };
  const scale = height / (hi - lo);
  const cx = f.root[0];
  const X = (x: number) => (width / 2 + (x - cx) * scale).toFixed(1);
  const Y = (y: number) => (height - (y - lo) * scale).toFixed(1);
  const parts: string[] = [];
  const halfWidthM = width / 2 / scale;
  if (side) {
    parts.push(`<line x1="0" y1="${Y(0)}" x2="${width}" y2="${Y(0)}" stroke="${hex(GROUND)}" stroke-width="2"/>`);
    for (let x = Math.ceil((cx - halfWidthM) * 2) / 2; x <= cx + halfWidthM; x += 0.5) {
      parts.push(`<line x1="${X(x)}" y1="${Y(0)}" x2="${X(x)}" y2="${(Number(Y(0)) + 8).toFixed(1)}" stroke="${hex(GROUND)}" stroke-width="2"/>`);
    }
  } else {
    for (let x = Math.ceil(cx - halfWidthM); x <= cx + halfWidthM; x++)
      parts.push(`<line x1="${X(x)}" y1="0" x2="${X(x)}" y2="${height}" stroke="${hex(GROUND)}" stroke-width="1"/>`);
    for (let y = Math.ceil(lo); y <= hi; y++) parts.push(`<line x1="0" y1="${Y(y)}" x2="${width}" y2="${Y(y)}" stroke="${hex(GROUND)}" stroke-width="1"/>`);
  }
  film.geoms.forEach((g, k) => {
    const s = f.segments.subarray(4 * k, 4 * k + 4);
    const w = Math.max(2, 2 * g.radius * scale).toFixed(1);
    const colour = hex(g.world ? WORLD : BODY);
    parts.push(`<line x1="${X(s[0]!)}" y1="${Y(s[1]!)}" x2="${X(s[2]!)}" y2="${Y(s[3]!)}" stroke="${colour}" stroke-width="${w}" stroke-linecap="round"/>`);
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${parts.join("")}</svg>`;
};

/** The film as a looping GIF; each frame shows for its simulated time. */
export const filmToGif = (film: BodyFilm, options: FilmGifOptions): Gif => {
  const hundredths = (step: number) => Math.round(step * film.dt * 100);
  function* frames(): Generator<GifFrame> {
    for (let i = 0; i < film.frames.length; i++) {
      const next = film.frames[i + 1]?.step;
      const delayMs = next === undefined ? options.holdLastMs : Math.max(2, hundredths(next) - hundredths(film.frames[i]!.step)) * 10;
      yield { raster: svgToRaster(frameSvg(film, i, options.width)), delayMs };
    }
  }
  return encodeGif(frames(), PALETTE);
};
