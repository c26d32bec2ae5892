/**
 * What `hexa judge` tells the vision judge about the picture (docs/guides/judging.md, "hexa judge"): which way the
 * task's forward direction runs in the frames, from the recorded header's forward vector and the scene's camera,
 * and which body the camera follows, so that the judge reads progress from the floor's checker moving past.
 */
import type { FrameCamera } from "../pictures/frame-scene.ts";
import type { TrajectoryHeader } from "../trajectory/record.ts";

/** Screen direction of a world vector seen by MuJoCo's free camera (azimuth, elevation): right/left, into/out of the picture, up/down. */
const screenWords = (v: readonly [number, number, number], c: FrameCamera): string => {
  const az = (c.azimuth * Math.PI) / 180;
  const across = v[0] * Math.sin(az) - v[1] * Math.cos(az);
  const depth = v[0] * Math.cos(az) + v[1] * Math.sin(az);
  const words: string[] = [];
  if (Math.abs(across) > 0.3) words.push(across > 0 ? "to the right of the picture" : "to the left of the picture");
  if (Math.abs(depth) > 0.3) words.push(depth > 0 ? "away from the viewer, into the picture" : "towards the viewer, out of the picture");
  if (Math.abs(v[2]) > 0.3) words.push(v[2] > 0 ? "up" : "down");
  return words.join(" and ") || "along the line of sight";
};

/** The scene note sent with both of the vision judge's turns. */
export const sceneNote = (header: Pick<TrajectoryHeader, "forward" | "bodies">, camera: FrameCamera): string => {
  const tracked = camera.trackBody === 0 ? "the camera is fixed" : `the camera follows the ${header.bodies[camera.trackBody]?.name ?? "root"} body`;
  return [
    `The task's forward direction runs ${screenWords(header.forward, camera)}; up in the world is up in the picture.`,
    `${tracked[0]!.toUpperCase()}${tracked.slice(1)}${camera.trackBody === 0 ? "" : ", so travel shows as the checkered floor moving past"}.`,
  ].join(" ");
};
