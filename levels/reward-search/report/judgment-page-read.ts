/**
 * What `hexa inspect` reads of a `hexa judge` folder (docs/security.md: a stranger's folder): judgment.json through
 * the checks `hexa verify` uses (bounded, names held to what hexa judge writes), and each pick's frames from
 * `frames/<seed>/` only: plain PNG files named as hexa judge names them, bounded in count and size. A vision
 * judge's criteria are shown where a pick has its verdict.
 */
import { existsSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { type FrameBudget, type FrameRefusal, type FrameSeries, readFrameFile } from "../pictures/frame-files.ts";
import { framesName, readJudgmentFolder } from "../verify/judgment-folder.ts";
import type { PickedEpisode } from "../cli/judge-file.ts";
import type { CriterionVerdict, JudgmentPageInput, PickPictures } from "./judgment-page.ts";

/** Frames per series shown at most (a 10 fps episode of 1000 steps at dt 0.008 has 80). */
const MAX_FRAMES = 300;
/** The largest frame read (a 480 × 480 PNG is about 100 KiB). */
export const MAX_FRAME_BYTES = 2 << 20;
/** All frames of a page together at most (the page carries them inline). */
export const MAX_PAGE_FRAME_BYTES = 96 << 20;
const FPS = 10;

/** What a refused frame file's note says of it. */
const refusalText = (r: FrameRefusal): string =>
  r.kind === "not a file"
    ? "is not a plain file"
    : r.kind === "not png"
      ? "is not a PNG"
      : `is ${r.size} bytes, over the ${r.kind === "frame size" ? "frame's" : "page's"} limit`;

/** One series' frames of a folder as data: URLs, in order; what was left out goes to `notes`. */
const series = (folder: string, name: FrameSeries, budget: FrameBudget, notes: string[]): string[] => {
  const pattern = new RegExp(`^${name}-(\\d{4})\\.png$`);
  const files = readdirSync(folder)
    .filter((f) => pattern.test(f))
    .sort();
  if (files.length > MAX_FRAMES) notes.push(`${name}: ${files.length} files; the first ${MAX_FRAMES} are shown`);
  const out: string[] = [];
  for (const f of files.slice(0, MAX_FRAMES)) {
    const read = readFrameFile(join(folder, f), MAX_FRAME_BYTES, budget);
    if (!Buffer.isBuffer(read)) {
      notes.push(`${name}: ${f} ${refusalText(read)}; the series stops before it`);
      break;
    }
    out.push(`data:image/png;base64,${read.toString("base64")}`);
  }
  return out;
};

/** The pick's frames folder, when it is a plain folder of the judgment folder. */
const picturesOf = (dir: string, frames: string | undefined, budget: FrameBudget): PickPictures => {
  const notes: string[] = [];
  if (frames === undefined) return { frames: [], trail: [], notes };
  const folder = join(dir, frames);
  if (!existsSync(folder) || !lstatSync(folder).isDirectory() || !lstatSync(join(dir, "frames")).isDirectory())
    return { frames: [], trail: [], notes: [`${frames}: missing or not a plain folder; no frames shown`] };
  return { frames: series(folder, "frame", budget, notes), trail: series(folder, "trail", budget, notes), notes };
};

/** The vision judge's criteria with their verdicts, where the pick has a vision verdict. */
const criteriaOf = (pick: PickedEpisode): CriterionVerdict[] | undefined =>
  pick.vision?.kind === "verdict" ? pick.vision.criteria.map((c) => ({ criterion: c.criterion, verdict: c.status, assessment: c.assessment })) : undefined;

/** The page's input for a judgment folder (its frames taken from `budget`, shared by the judgments of one page); refuses a folder whose judgment.json fails its checks, naming the field. */
export const readJudgmentPage = (dir: string, budget: FrameBudget = { left: MAX_PAGE_FRAME_BYTES }): JudgmentPageInput => {
  const { file } = readJudgmentFolder(dir);
  const pictures = new Map(
    file.picks.map((p) => {
      const criteria = criteriaOf(p);
      const frames = p.frames === framesName(p.seed) ? p.frames : undefined;
      return [p.pick, { ...picturesOf(dir, frames, budget), ...(criteria ? { criteria } : {}) }] as const;
    }),
  );
  return { dir, file, pictures, fps: FPS };
};
