import { existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { ConfigError } from "../../../src/errors.ts";

/**
 * An episode's frames on disk (docs/spec/reward-search.md §2, frames): `frame-0000.png …` (and `trail-0000.png …`)
 * in one folder, and from them an MP4 or a GIF made by Debian's ffmpeg. ffmpeg runs in that folder with fixed
 * arguments; the only values it is given are numbers checked here, never a path the input chose.
 */

export const FFMPEG = "/usr/bin/ffmpeg";
export const haveFfmpeg = (): boolean => existsSync(FFMPEG);

export type FrameSeries = "frame" | "trail";
const FFMPEG_TIMEOUT_MS = 300_000;

/** Write the PNGs as `<series>-0000.png …` in dir (made if missing); returns the file names. */
export const writeFrames = (dir: string, pngs: readonly Buffer[], series: FrameSeries = "frame"): string[] => {
  if (pngs.length > 9999) throw new ConfigError(`frames: ${pngs.length} frames is more than a folder holds (9999)`);
  mkdirSync(dir, { recursive: true });
  return pngs.map((png, i) => {
    const name = frameFileName(series, i);
    writeFileSync(join(dir, name), png);
    return name;
  });
};

/** A frame file's name in its series: `<series>-0000.png …`. */
export const frameFileName = (series: FrameSeries, i: number): string => `${series}-${String(i).padStart(4, "0")}.png`;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Bytes that reads of frame files may still take, shared by the reads of one page or one replay. */
export interface FrameBudget {
  left: number;
}

/** Why a frame file of a stranger's folder was not read. */
export type FrameRefusal = { kind: "not a file" } | { kind: "frame size" | "budget"; size: number } | { kind: "not png" };

/**
 * One frame file of a folder someone else wrote (docs/security.md): a plain file (no link), at most `maxBytes`
 * and what the budget has left, starting with PNG's signature; its bytes are taken from the budget.
 */
export const readFrameFile = (path: string, maxBytes: number, budget: FrameBudget): Buffer | FrameRefusal => {
  const st = lstatSync(path);
  if (!st.isFile()) return { kind: "not a file" };
  if (st.size > maxBytes) return { kind: "frame size", size: st.size };
  if (st.size > budget.left) return { kind: "budget", size: st.size };
  const bytes = readFileSync(path);
  if (!bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return { kind: "not png" };
  budget.left -= st.size;
  return bytes;
};

const checkRate = (fps: number): void => {
  if (!(fps > 0 && fps <= 120)) throw new ConfigError(`frames: fps must be in (0, 120], got ${fps}`);
};

const ffmpeg = async (dir: string, args: string[]): Promise<void> => {
  if (!haveFfmpeg()) throw new ConfigError(`${FFMPEG} not found: install Debian's ffmpeg (apt-get install -y ffmpeg) for videos of frames`);
  await execa(FFMPEG, ["-hide_banner", "-v", "error", "-y", ...args], { cwd: dir, timeout: FFMPEG_TIMEOUT_MS, stdin: "ignore" });
};

/** `<series>.mp4` (H.264, yuv420p, fast start) from the series' PNGs in dir, at fps; returns its path. */
export const framesToMp4 = async (dir: string, fps: number, series: FrameSeries = "frame"): Promise<string> => {
  checkRate(fps);
  const out = `${series}.mp4`;
  await ffmpeg(dir, ["-framerate", String(fps), "-i", `${series}-%04d.png`, "-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart", out]);
  return join(dir, out);
};

/** An animated GIF (looping, its own palette) of the series' PNGs in dir at fps, `width` pixels wide. */
export const framesToGif = async (dir: string, fps: number, width: number, series: FrameSeries = "frame"): Promise<Uint8Array> => {
  checkRate(fps);
  if (!Number.isInteger(width) || width < 16 || width > 1024) throw new ConfigError(`frames: GIF width must be an integer in [16, 1024], got ${width}`);
  const out = `${series}.gif`;
  const filter = `scale=${width}:-1:flags=lanczos,split[a][b];[a]palettegen[p];[b][p]paletteuse`;
  await ffmpeg(dir, ["-framerate", String(fps), "-i", `${series}-%04d.png`, "-vf", filter, "-loop", "0", out]);
  return new Uint8Array(readFileSync(join(dir, out)));
};
