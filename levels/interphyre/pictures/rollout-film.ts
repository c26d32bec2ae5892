import { TIME_STEP_S } from "../world/constants.ts";
import { rollout, type RolloutResult } from "../world/rollout.ts";
import type { Scene } from "../world/scene.ts";
import { redBall, type SimulationSpec } from "../world/simulation.ts";
import type { CreateEngine } from "../world/engine.ts";
import { encodeGif, type Gif, type GifFrame } from "../../../src/report/gif.ts";
import { PALETTE, renderPicture, type Poses } from "./picture.ts";
import { svgToRaster } from "../../../src/report/png.ts";

/** A rollout filmed every few steps: the poses to draw and the shapes to draw them with. */
export interface Film {
  result: RolloutResult;
  /** The scene plus the red ball, when one was placed. */
  shapes: Scene;
  /** Poses at step 0, every `stepsPerFrame` steps, and at the last step. */
  frames: { step: number; poses: Poses }[];
  stepsPerFrame: number;
}

/** Runs the rollout (stopping at success, as Interphyre does) and keeps the poses every `stepsPerFrame` steps. */
export const filmRollout = (spec: SimulationSpec, options: { horizon: number; stepsPerFrame: number; engine?: CreateEngine }): Film => {
  const shapes: Scene = spec.action ? { ...spec.scene, red_ball: redBall(spec.action) } : { ...spec.scene };
  const frames: Film["frames"] = [{ step: 0, poses: shapes }];
  const result = rollout(spec, {
    engine: options.engine,
    horizon: options.horizon,
    onStep: (sim) => {
      if (sim.stepCount % options.stepsPerFrame === 0) frames.push({ step: sim.stepCount, poses: sim.state() });
    },
  });
  // A successful rollout returns before onStep sees its last step.
  if (frames.at(-1)!.step !== result.steps) frames.push({ step: result.steps, poses: result.sim.state() });
  return { result, shapes, frames, stepsPerFrame: options.stepsPerFrame };
};

export interface FilmGifOptions {
  size: number;
  /** Draw fading earlier poses under each frame. */
  trail: boolean;
  /** Extra time the last frame stays up before the loop restarts. */
  holdLastMs: number;
  onFrame?: (done: number, total: number) => void;
}

/** Ghosts about every 0.1 s of simulated time, for half a second back. */
const TRAIL_GHOSTS = 5;
const TRAIL_SPACING_S = 0.1;

const trailBefore = (film: Film, i: number): Poses[] => {
  const every = Math.max(1, Math.round(TRAIL_SPACING_S / TIME_STEP_S / film.stepsPerFrame));
  const out: Poses[] = [];
  for (let k = TRAIL_GHOSTS; k >= 1; k--) {
    const j = i - k * every;
    if (j >= 0) out.push(film.frames[j]!.poses);
  }
  return out;
};

/** GIF delays count hundredths of a second; rounding the running time, not each delay, keeps playback real-time. */
const hundredths = (step: number): number => Math.round(step * TIME_STEP_S * 100);

/** The film as an animated GIF playing in real time: each frame shows for its steps × 1/60 s. */
export const filmToGif = (film: Film, options: FilmGifOptions): Gif => {
  const total = film.frames.length;
  function* frames(): Generator<GifFrame> {
    for (let i = 0; i < total; i++) {
      const { step, poses } = film.frames[i]!;
      const svg = renderPicture(film.shapes, poses, { size: options.size, ...(options.trail ? { trail: trailBefore(film, i) } : {}) });
      const next = film.frames[i + 1]?.step;
      const delayMs = next === undefined ? options.holdLastMs : (hundredths(next) - hundredths(step)) * 10;
      yield { raster: svgToRaster(svg), delayMs };
      options.onFrame?.(i + 1, total);
    }
  }
  return encodeGif(frames(), PALETTE);
};
