/**
 * A pick's rendered frames read back from a `hexa judge` folder for `hexa verify` (docs/security.md: a stranger's
 * folder): exactly the files hexa judge writes for the episode, `frames/<seed>/frame-0000.png …` (and
 * `trail-0000.png …`), as many as it renders for the recorded trajectory, each a plain PNG file within the bounds
 * `hexa inspect` reads frames with. Their times are the rendering's: the sampled source frames' (frame-times.ts).
 */
import { existsSync, lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CannotVerify } from "../../../src/verify/outcome.ts";
import { FRAME_FPS } from "../cli/judge-vision.ts";
import { type EpisodeFrames, MAX_FRAMES } from "../pictures/episode-frames.ts";
import { sampledIndices } from "../pictures/frame-times.ts";
import { MAX_FRAME_BYTES, MAX_PAGE_FRAME_BYTES } from "../report/judgment-page-read.ts";
import type { TrajectoryRecord } from "../trajectory/record.ts";
import { framesName } from "./judgment-folder.ts";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Bytes of frames read by one replay at most. */
interface Budget {
  left: number;
}

/** `count` frames of one series, in order; any missing, linked, oversized or non-PNG file is refused by name. */
const series = (dir: string, folder: string, name: "frame" | "trail", count: number, budget: Budget): Buffer[] =>
  Array.from({ length: count }, (_, i) => {
    const file = join(folder, `${name}-${String(i).padStart(4, "0")}.png`);
    const path = join(dir, file);
    const refuse = (why: string) => new CannotVerify(`${path}: ${file}: ${why}; the vision judge's frames cannot be read back`);
    if (!existsSync(path)) throw refuse(`missing (hexa judge rendered ${count} ${name} files for this episode)`);
    const st = lstatSync(path);
    if (!st.isFile()) throw refuse("not a plain file (a link or a folder)");
    if (st.size > MAX_FRAME_BYTES) throw refuse(`${st.size} bytes, more than ${MAX_FRAME_BYTES}`);
    if (st.size > budget.left) throw refuse(`the frames read pass ${MAX_PAGE_FRAME_BYTES} bytes`);
    const bytes = readFileSync(path);
    if (!bytes.subarray(0, 8).equals(PNG)) throw refuse("not a PNG");
    budget.left -= st.size;
    return bytes;
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
export const frameBudget = (): Budget => ({ left: MAX_PAGE_FRAME_BYTES });

/** Episode `seed`'s frames (and trail) as hexa judge rendered and sent them, read from the judgment folder. */
export const recordedFrames = (dir: string, seed: number, record: TrajectoryRecord, trail: boolean, budget: Budget): EpisodeFrames => {
  const indices = sampledIndices(record.steps + 1, record.header.dt, FRAME_FPS, MAX_FRAMES);
  const folder = framesName(seed);
  checkFolder(dir, folder);
  return {
    frames: series(dir, folder, "frame", indices.length, budget),
    times: indices.map((k) => k * record.header.dt),
    ...(trail ? { trail: series(dir, folder, "trail", indices.length, budget) } : {}),
  };
};
