/**
 * A pick's rendered frames read back from a `hexa judge` folder for `hexa verify` (docs/security.md: a stranger's
 * folder): exactly the files hexa judge writes for the episode, `frames/<seed>/frame-0000.png …` (and
 * `trail-0000.png …`), as many as it renders for the recorded trajectory, each a plain PNG file within the bounds
 * `hexa inspect` reads frames with. Their times are the rendering's: the sampled source frames' (frame-times.ts).
 */
import { existsSync, lstatSync } from "node:fs";
import { join } from "node:path";
import { CannotVerify } from "../../../src/verify/outcome.ts";
import { JUDGED_FRAME_FPS } from "../pictures/episode-frames.ts";
import { type EpisodeFrames, MAX_FRAMES } from "../pictures/episode-frames.ts";
import { type FrameBudget, type FrameRefusal, type FrameSeries, frameFileName, readFrameFile } from "../pictures/frame-files.ts";
import { sampledIndices } from "../pictures/frame-times.ts";
import { MAX_FRAME_BYTES, MAX_PAGE_FRAME_BYTES } from "../report/judgment-page-read.ts";
import type { TrajectoryRecord } from "../trajectory/record.ts";
import { framesName } from "./judgment-folder.ts";

/** Why a refused frame file cannot be read back. */
const refusalText = (r: FrameRefusal): string =>
  r.kind === "not a file"
    ? "not a plain file (a link or a folder)"
    : r.kind === "not png"
      ? "not a PNG"
      : r.kind === "frame size"
        ? `${r.size} bytes, more than ${MAX_FRAME_BYTES}`
        : `the frames read pass ${MAX_PAGE_FRAME_BYTES} bytes`;

/** `count` frames of one series, in order; any missing, linked, oversized or non-PNG file is refused by name. */
const series = (dir: string, folder: string, name: FrameSeries, count: number, budget: FrameBudget): Buffer[] =>
  Array.from({ length: count }, (_, i) => {
    const file = join(folder, frameFileName(name, i));
    const path = join(dir, file);
    const refuse = (why: string) => new CannotVerify(`${path}: ${file}: ${why}; the vision judge's frames cannot be read back`);
    if (!existsSync(path)) throw refuse(`missing (hexa judge rendered ${count} ${name} files for this episode)`);
    const read = readFrameFile(path, MAX_FRAME_BYTES, budget);
    if (!Buffer.isBuffer(read)) throw refuse(refusalText(read));
    return read;
  });

/** The frames folder of a judgment folder, refused unless it and `frames/` are plain folders. */
const checkFolder = (dir: string, folder: string): void => {
  for (const f of ["frames", folder]) {
    const path = join(dir, f);
    if (!existsSync(path) || !lstatSync(path).isDirectory())
      throw new CannotVerify(`${path}: ${f}: missing or not a plain folder; the vision judge's frames cannot be read back`);
  }
};

/** A budget shared by every pick of one replay. */
export const frameBudget = (): FrameBudget => ({ left: MAX_PAGE_FRAME_BYTES });

/** Episode `seed`'s frames (and trail) as hexa judge rendered and sent them, read from the judgment folder. */
export const recordedFrames = (dir: string, seed: number, record: TrajectoryRecord, trail: boolean, budget: FrameBudget): EpisodeFrames => {
  const indices = sampledIndices(record.steps + 1, record.header.dt, JUDGED_FRAME_FPS, MAX_FRAMES);
  const folder = framesName(seed);
  checkFolder(dir, folder);
  return {
    frames: series(dir, folder, "frame", indices.length, budget),
    times: indices.map((k) => k * record.header.dt),
    ...(trail ? { trail: series(dir, folder, "trail", indices.length, budget) } : {}),
  };
};
