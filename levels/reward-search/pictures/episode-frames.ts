import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { ConfigError } from "../../../src/errors.ts";
import { CHROMIUM } from "../../../src/util/chromium.ts";
import type { TrajectoryRecord } from "../trajectory/record.ts";
import { cameraPose, type FrameScene } from "./frame-scene.ts";
import { sampledIndices } from "./frame-times.ts";

/**
 * Shaded 3-D frames of a recorded MuJoCo episode (docs/spec/reward-search.md §2, frames): three.js in Debian's
 * headless chromium, SwiftShader's software GL so that a pose renders the same pixels on every machine. One page
 * draws a whole episode: the scene goes in once, then per output frame the poses of the source steps it needs.
 */

export { CHROMIUM };
/** How a judged episode is rendered: Gymnasium's default 480 × 480, at Prompt-to-Policy's 10 frames per second. */
export const JUDGED_FRAME_SIZE = 480;
/** The rate a pick's frames are rendered at, and so the times `hexa verify` gives the frames it reads back. */
export const JUDGED_FRAME_FPS = 10;

/** Bounds on what one call renders. */
const MAX_FRAME_SIZE = 1024;
/** The most frames one rendering makes (judge-vision.ts renders a pick with no lower cap). */
export const MAX_FRAMES = 1200;
const MAX_GEOMS = 1000;
/** Prompt-to-Policy's trail reaches this many source frames back (frames-page.js blends them). */
const TRAIL_LOOKBACK = 40;

export interface FrameOptions {
  /** Output frames per second of simulated time (Prompt-to-Policy: 10). */
  fps: number;
  /** Width and height in pixels (Gymnasium's default 480). */
  size: number;
  /** Also make the motion-trail sequence. */
  trail: boolean;
  /** At most this many output frames (the episode's start is kept); MAX_FRAMES at most. */
  maxFrames?: number;
  /** Aborting closes the browser; the call then rejects. */
  signal?: AbortSignal;
}

export interface EpisodeFrames {
  /** PNG images, one per output frame. */
  frames: Buffer[];
  /** Simulated seconds since reset of each frame. */
  times: number[];
  /** The motion-trail PNGs, frame for frame, when asked. */
  trail?: Buffer[];
}

const ORIGIN = "http://hexa-frames.invalid";
const THREE_BUILD = dirname(createRequire(import.meta.url).resolve("three"));
const IMPORT_MAP = JSON.stringify({ imports: { three: "/three.module.js" } });
/** What the page may load: its HTML, its script and three.js's two ES modules; anything else is refused. */
const PAGE_FILES: Record<string, { type: string; body: () => string }> = {
  "/": {
    type: "text/html",
    body: () => `<!doctype html><meta charset="utf-8"><script type="importmap">${IMPORT_MAP}</script><script type="module" src="/frames-page.js"></script>`,
  },
  "/frames-page.js": { type: "text/javascript", body: () => readFileSync(fileURLToPath(new URL("./frames-page.js", import.meta.url)), "utf8") },
  "/three.module.js": { type: "text/javascript", body: () => readFileSync(join(THREE_BUILD, "three.module.js"), "utf8") },
  "/three.core.js": { type: "text/javascript", body: () => readFileSync(join(THREE_BUILD, "three.core.js"), "utf8") },
};

/** Software GL (SwiftShader through ANGLE): the same pixels on any machine, no GPU needed. */
const launch = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--disable-background-networking"],
  });

const openPage = async (browser: Browser, scene: FrameScene, size: number): Promise<Page> => {
  const page = await browser.newPage();
  await page.route("**/*", (route) => {
    const url = new URL(route.request().url());
    const file = url.origin === ORIGIN ? PAGE_FILES[url.pathname] : undefined;
    return file ? route.fulfill({ status: 200, contentType: file.type, body: file.body() }) : route.abort();
  });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${ORIGIN}/`);
  await page
    .waitForFunction(() => "hexaFrames" in window, undefined, { timeout: 30_000 })
    .catch(() => {
      throw new ConfigError(`the frames page did not start in chromium${errors.length ? `: ${errors.join("; ")}` : ""}`);
    });
  await page.evaluate((s) => (window as unknown as { hexaFrames: { init(s: unknown): unknown } }).hexaFrames.init(s), { ...scene, size });
  return page;
};

const checkInputs = (scene: FrameScene, record: TrajectoryRecord, o: FrameOptions): void => {
  if (!Number.isInteger(o.size) || o.size < 16 || o.size > MAX_FRAME_SIZE)
    throw new ConfigError(`frames: size must be an integer in [16, ${MAX_FRAME_SIZE}], got ${o.size}`);
  if (o.maxFrames !== undefined && !(Number.isInteger(o.maxFrames) && o.maxFrames >= 1))
    throw new ConfigError(`frames: maxFrames must be a positive integer, got ${o.maxFrames}`);
  if (scene.geoms.length > MAX_GEOMS) throw new ConfigError(`frames: the scene has ${scene.geoms.length} geoms, more than ${MAX_GEOMS}`);
  const h = record.header;
  if (h.nbody !== scene.nbody) throw new ConfigError(`frames: the record has nbody ${h.nbody} but the scene's model ${scene.model} has ${scene.nbody}`);
  const track = scene.camera.trackBody;
  if (!Number.isInteger(track) || track < 0 || track >= scene.nbody)
    throw new ConfigError(`frames: the camera tracks body ${track}, not one of the model's ${scene.nbody}`);
  if (h.model !== scene.model) throw new ConfigError(`frames: the record ran ${h.model} but the scene is of ${scene.model}`);
  if (
    !Number.isInteger(record.steps) ||
    record.steps < 0 ||
    record.columns.xpos.length < record.steps * h.nbody * 3 ||
    record.columns.xquat.length < record.steps * h.nbody * 4
  )
    throw new ConfigError(`frames: the record's xpos/xquat columns hold fewer than its ${record.steps} steps`);
  if (record.initial.xpos.length < h.nbody * 3 || record.initial.xquat.length < h.nbody * 4)
    throw new ConfigError("frames: the record's initial xpos/xquat are shorter than nbody");
};

interface Source {
  index: number;
  xpos: number[];
  xquat: number[];
  eye: [number, number, number];
  target: [number, number, number];
}

/** Source frame k: the state after reset (k = 0) or after env step k, with the camera that tracks it. */
const sourceOf = (scene: FrameScene, record: TrajectoryRecord, k: number): Source => {
  const nb = scene.nbody;
  const xpos = k === 0 ? record.initial.xpos : record.columns.xpos.subarray((k - 1) * nb * 3, k * nb * 3);
  const xquat = k === 0 ? record.initial.xquat : record.columns.xquat.subarray((k - 1) * nb * 4, k * nb * 4);
  const b = scene.camera.trackBody;
  const tracked: [number, number, number] = [xpos[3 * b]!, xpos[3 * b + 1]!, xpos[3 * b + 2]!];
  const lookatZ = scene.camera.lookatZ ?? record.initial.xpos[3 * b + 2]!;
  return { index: k, xpos: [...xpos], xquat: [...xquat], ...cameraPose(scene.camera, tracked, lookatZ) };
};

const pngOf = (dataUrl: string): Buffer => Buffer.from(dataUrl.slice(dataUrl.indexOf(",") + 1), "base64");

type FrameCall = { sources: Source[]; trail: boolean };
type FrameReply = { png: string; trail: string | null };

/** Render the sampled frames of a recorded episode; the browser is closed on every path. */
export const renderEpisodeFrames = async (scene: FrameScene, record: TrajectoryRecord, o: FrameOptions): Promise<EpisodeFrames> => {
  checkInputs(scene, record, o);
  const cap = Math.min(o.maxFrames ?? MAX_FRAMES, MAX_FRAMES);
  const indices = sampledIndices(record.steps + 1, record.header.dt, o.fps, cap);
  o.signal?.throwIfAborted();
  const browser = await launch();
  const close = () => void browser.close();
  o.signal?.addEventListener("abort", close, { once: true });
  try {
    const page = await openPage(browser, scene, o.size);
    const out: EpisodeFrames = { frames: [], times: [], ...(o.trail ? { trail: [] } : {}) };
    let drawn = -1;
    for (const index of indices) {
      o.signal?.throwIfAborted();
      const first = o.trail ? Math.min(index, Math.max(drawn + 1, index - TRAIL_LOOKBACK)) : index;
      const sources = Array.from({ length: index - first + 1 }, (_, j) => sourceOf(scene, record, first + j));
      const reply = await page.evaluate(
        (call: FrameCall) => (window as unknown as { hexaFrames: { frame(c: FrameCall): FrameReply } }).hexaFrames.frame(call),
        { sources, trail: o.trail },
      );
      drawn = index;
      out.frames.push(pngOf(reply.png));
      out.times.push(index * record.header.dt);
      if (reply.trail) out.trail!.push(pngOf(reply.trail));
    }
    return out;
  } finally {
    o.signal?.removeEventListener("abort", close);
    await browser.close();
  }
};
