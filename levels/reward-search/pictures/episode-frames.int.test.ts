import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, type EpisodeFrames, renderEpisodeFrames } from "./episode-frames.ts";
import { FFMPEG, framesToMp4, writeFrames } from "./frame-files.ts";
import { sampledIndices } from "./frame-times.ts";
import { decodeGif } from "../../../test/support/gif-decode.ts";
import { rolloutFramesGif } from "./rollout-frames.ts";
import { type SteppedEpisode, steppedEpisode } from "./stepped-record.ts";

/**
 * Shaded frames of real MuJoCo episodes in headless chromium: real renders (not blank, the body in view), moving
 * when the body moves, the same pixels for the same pose in a fresh browser, and a motion trail that changes
 * only pixels where something moved. Pixels are read back with Debian's ffmpeg.
 */

const ready = existsSync(CHROMIUM) && existsSync(FFMPEG);
if (!ready) console.warn(`${CHROMIUM} or ${FFMPEG} not found: frame tests skipped (apt-get install -y chromium ffmpeg)`);
const suite = ready ? describe : describe.skip;

const dir = mkdtempSync(join(tmpdir(), "hexa-frames-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** RGB bytes of a PNG, through ffmpeg. */
const pixels = async (png: Buffer, name: string): Promise<Uint8Array> => {
  const [file] = writeFrames(join(dir, name), [png]);
  const out = await execa(FFMPEG, ["-v", "error", "-i", file!, "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"], { cwd: join(dir, name), encoding: "buffer" });
  return new Uint8Array(out.stdout);
};

const pngSize = (png: Buffer) => [png.readUInt32BE(16), png.readUInt32BE(20)];

/** Per pixel: whether a and b differ. */
const diffMask = (a: Uint8Array, b: Uint8Array): boolean[] =>
  Array.from({ length: a.length / 3 }, (_, p) => a[3 * p] !== b[3 * p] || a[3 * p + 1] !== b[3 * p + 1] || a[3 * p + 2] !== b[3 * p + 2]);
const count = (mask: boolean[]) => mask.filter(Boolean).length;

/** Body-coloured pixels (the shipped models' tan, 0.8 0.6 0.4, shaded) in the middle half of a size × size frame. */
const bodyPixelsNearCentre = (rgb: Uint8Array, size: number): number => {
  let n = 0;
  for (let y = size / 4; y < (3 * size) / 4; y++)
    for (let x = size / 4; x < (3 * size) / 4; x++) {
      const p = 3 * (y * size + x);
      if (rgb[p]! > rgb[p + 1]! + 25 && rgb[p + 1]! > rgb[p + 2]! + 25) n++;
    }
  return n;
};

suite("shaded frames of a MuJoCo episode", () => {
  let hopper: SteppedEpisode;
  let frames: EpisodeFrames;
  beforeAll(async () => {
    hopper = await steppedEpisode({ task: "hopper", steps: 18, act: (_, t) => [0.3 * Math.sin(t / 3), 0.3 * Math.cos(t / 3), 0.3] });
    // 25 fps on hopper's 125 source frames per second: a frame every 5 steps.
    frames = await renderEpisodeFrames(hopper.scene, hopper.record, { fps: 25, size: 480, trail: false });
  }, 120_000);

  it("renders 480 × 480 PNGs at the sampled times, with the body in view and moving", async () => {
    expect(hopper.record.steps).toBe(18);
    expect(frames.times.map((t) => Math.round(t / hopper.record.header.dt))).toEqual([2, 7, 12]);
    expect(pngSize(frames.frames[0]!)).toEqual([480, 480]);
    const rgb = await Promise.all(frames.frames.map((f, i) => pixels(f, `hopper-${i}`)));
    for (const f of rgb) {
      expect(new Set(Array.from({ length: f.length / 3 }, (_, p) => (f[3 * p]! << 16) | (f[3 * p + 1]! << 8) | f[3 * p + 2]!)).size).toBeGreaterThan(100);
      expect(bodyPixelsNearCentre(f, 480)).toBeGreaterThan(500);
    }
    for (let i = 1; i < rgb.length; i++) expect(count(diffMask(rgb[i - 1]!, rgb[i]!))).toBeGreaterThan(100);
  });

  it("draws a pose with the same pixels in a fresh browser", async () => {
    const again = await renderEpisodeFrames(hopper.scene, hopper.record, { fps: 25, size: 480, trail: false, maxFrames: 1 });
    expect(again.frames).toHaveLength(1);
    expect(again.frames[0]!.equals(frames.frames[0]!)).toBe(true);
  }, 120_000);

  it("writes the frames into a folder and an MP4 from them", async () => {
    const folder = join(dir, "video");
    expect(writeFrames(folder, frames.frames)).toEqual(["frame-0000.png", "frame-0001.png", "frame-0002.png"]);
    const mp4 = await framesToMp4(folder, 25);
    expect(readFileSync(mp4).subarray(4, 8).toString("latin1")).toBe("ftyp");
  });

  it("blends the motion trail only where the previous source frames differ from the frame", async () => {
    // A fixed camera (the pendulum's world-tracking one) and every source frame an output frame.
    const cart = await steppedEpisode({ task: "inverted_pendulum", steps: 8, act: (_, t) => [t < 4 ? 3 : -3] });
    const fps = 1 / cart.record.header.dt;
    const r = await renderEpisodeFrames(cart.scene, cart.record, { fps, size: 160, trail: true });
    expect(r.frames).toHaveLength(cart.record.steps + 1);
    const plain = await Promise.all(r.frames.map((f, i) => pixels(f, `cart-${i}`)));
    const trail = await Promise.all(r.trail!.map((f, i) => pixels(f, `cart-trail-${i}`)));
    expect(Buffer.from(trail[0]!).equals(Buffer.from(plain[0]!))).toBe(true);
    const last = plain.length - 1;
    const moved = plain.slice(0, last).reduce((m, f) => diffMask(f, plain[last]!).map((d, p) => d || m[p]!), new Array<boolean>(160 * 160).fill(false));
    const blended = diffMask(trail[last]!, plain[last]!);
    expect(count(blended)).toBeGreaterThan(50);
    expect(blended.filter((d, p) => d && !moved[p]).length).toBe(0);
  }, 120_000);

  it("refuses a record that does not fit the scene, and an undrawable geom, closing the browser", async () => {
    const { scene, record } = hopper;
    await expect(renderEpisodeFrames({ ...scene, nbody: 3 }, record, { fps: 10, size: 480, trail: false })).rejects.toThrow(
      /record has nbody 5 but the scene's model hopper.xml has 3/,
    );
    await expect(renderEpisodeFrames(scene, record, { fps: 10, size: 4096, trail: false })).rejects.toThrow(
      /size must be an integer in \[16, 1024\], got 4096/,
    );
    const mesh = { ...scene, geoms: [...scene.geoms, { ...scene.geoms[1]!, type: 7 }] };
    await expect(renderEpisodeFrames(mesh, record, { fps: 10, size: 64, trail: false })).rejects.toThrow(/geom type 7 is not drawn/);
    const children = await execa("ps", ["--ppid", String(process.pid), "-o", "comm="], { reject: false });
    expect(children.stdout).not.toMatch(/chrom/);
  }, 120_000);

  it("makes hexa inspect's rollout GIF from the same frames: 240 wide, 10 fps", async () => {
    const gif = await rolloutFramesGif({ task: "hopper", policy: null });
    const decoded = decodeGif(gif.bytes);
    expect(decoded.width).toBe(240);
    expect(decoded.frames).toHaveLength(gif.frames);
    expect(gif.frames).toBe(Math.min(100, sampledIndices(gif.steps + 1, 0.008, 10).length));
    expect(gif.frames).toBeGreaterThan(1);
    expect(decoded.frames[0]!.delayCs).toBe(10);
  }, 120_000);
});
