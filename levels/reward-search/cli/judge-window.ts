/**
 * A closer look at a window of a judged episode for the synthesiser's `reask_vision` (docs/guides/judging.md,
 * "hexa judge"): the window's source frames (one per env state) rendered at up to their full rate, as many as
 * the vision server takes in one request, with the camera the episode's frames were drawn with.
 */
import { JUDGED_FRAME_SIZE, renderEpisodeFrames } from "../pictures/episode-frames.ts";
import type { FrameScene } from "../pictures/frame-scene.ts";
import type { TimedFrame } from "../judging/vision-frames.ts";
import type { TrajectoryRecord } from "../trajectory/record.ts";

/**
 * The record seen from source frame `a` (the state after step a) to `b`, for drawing only: its initial pose is
 * frame a's and its steps are a+1 … b. Only the poses (xpos, xquat) are cut; the renderer reads nothing else.
 */
const windowRecord = (record: TrajectoryRecord, a: number, b: number): TrajectoryRecord => {
  const nb = record.header.nbody;
  const pose = (name: "xpos" | "xquat", width: number, k: number) =>
    k === 0 ? record.initial[name] : record.columns[name].subarray((k - 1) * nb * width, k * nb * width);
  return {
    ...record,
    steps: b - a,
    initial: { ...record.initial, xpos: pose("xpos", 3, a), xquat: pose("xquat", 4, a) },
    columns: { ...record.columns, xpos: record.columns.xpos.subarray(a * nb * 3, b * nb * 3), xquat: record.columns.xquat.subarray(a * nb * 4, b * nb * 4) },
  };
};

/** Frames of [fromS, toS] at the highest rate that fits `maxImages` (every source frame when they fit), with their episode times. */
export const windowFrames = async (scene: FrameScene, record: TrajectoryRecord, fromS: number, toS: number, maxImages: number): Promise<TimedFrame[]> => {
  const dt = record.header.dt;
  const a = Math.min(record.steps, Math.max(0, Math.ceil(fromS / dt - 1e-9)));
  const b = Math.max(a, Math.min(record.steps, Math.floor(toS / dt + 1e-9)));
  // The camera's height stays the episode's (a tracking camera with no set height takes the reset pose's).
  const b0 = scene.camera.trackBody;
  const camera = { ...scene.camera, lookatZ: scene.camera.lookatZ ?? record.initial.xpos[3 * b0 + 2]! };
  const sourceFrames = b - a + 1;
  const fps = Math.min(1 / dt, (maxImages / sourceFrames) * (1 / dt));
  const r = await renderEpisodeFrames({ ...scene, camera }, windowRecord(record, a, b), { fps, size: JUDGED_FRAME_SIZE, trail: false, maxFrames: maxImages });
  return r.frames.map((image, i) => ({ image, t: a * dt + r.times[i]! }));
};
