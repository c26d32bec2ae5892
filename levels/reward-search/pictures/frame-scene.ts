import type { MjModel } from "mujoco-js";
import { ConfigError } from "../../../src/errors.ts";
import { assetPath } from "../envs/mujoco/mujoco-env.ts";
import { loadModel } from "../envs/mujoco/runtime.ts";

/**
 * What a shaded frame of a MuJoCo episode is drawn from (docs/spec/reward-search.md §2, frames): the model's
 * geoms in their bodies' frames, with the model's colours, and the camera of Gymnasium v5's default config
 * for the model. Plain data: it crosses into the browser page that renders it (episode-frames.ts).
 */

/** mjtGeom: the types drawn (height fields and meshes are not used by the shipped models). */
const GEOM = { plane: 0, sphere: 2, capsule: 3, ellipsoid: 4, cylinder: 5, box: 6 } as const;
const DRAWN: ReadonlySet<number> = new Set(Object.values(GEOM));

interface SceneGeom {
  type: number;
  /** MuJoCo's geom_size: radius / half-lengths, by type. */
  size: [number, number, number];
  rgba: [number, number, number, number];
  body: number;
  /** Pose in the body's frame; quat is (w, x, y, z). */
  pos: [number, number, number];
  quat: [number, number, number, number];
}

/** MuJoCo's free camera (mjvCamera): lookat, distance [m], azimuth and elevation [deg]. */
export interface FrameCamera {
  /** The body whose position the camera's lookat follows in x and y (0: the world, a fixed camera). */
  trackBody: number;
  distance: number;
  azimuth: number;
  elevation: number;
  /** The lookat height [m]; null: the tracked body's height after reset. */
  lookatZ: number | null;
  /** Vertical field of view [deg]: MuJoCo's default vis.global.fovy. */
  fovy: number;
}

export interface FrameScene {
  model: string;
  nbody: number;
  geoms: SceneGeom[];
  camera: FrameCamera;
}

/**
 * Gymnasium v5's DEFAULT_CAMERA_CONFIG per model (gymnasium/envs/mujoco/<env>_v5.py), on MuJoCo's camera
 * defaults (azimuth 90: looking along +y, so +x runs to the right; elevation −45 where the config names none).
 * Gymnasium sets trackbodyid on a free camera, which MuJoCo does not move; here the camera follows the named
 * body, and the root body (1) where the config names none (half_cheetah, ant: their models' "track" camera
 * follows the root's subtree), so the body stays in view over a whole episode.
 */
const GYMNASIUM_CAMERAS: Record<string, Partial<FrameCamera>> = {
  "hopper.xml": { trackBody: 2, distance: 3.0, lookatZ: 1.15, elevation: -20 },
  "walker2d_v5.xml": { trackBody: 2, distance: 4.0, lookatZ: 1.15, elevation: -20 },
  "half_cheetah.xml": { distance: 4.0 },
  "ant.xml": { distance: 4.0 },
  "humanoid.xml": { trackBody: 1, distance: 4.0, lookatZ: 2.0, elevation: -20 },
  "inverted_pendulum.xml": { trackBody: 0, distance: 2.04 },
};

const MUJOCO_CAMERA: FrameCamera = { trackBody: 1, distance: 2, azimuth: 90, elevation: -45, lookatZ: null, fovy: 45 };

export const cameraFor = (model: string): FrameCamera => {
  const config = GYMNASIUM_CAMERAS[model];
  if (!config) throw new ConfigError(`model ${model} has no default camera; frames are drawn for ${Object.keys(GYMNASIUM_CAMERAS).join(", ")}`);
  return { ...MUJOCO_CAMERA, ...config };
};

const triple = (a: ArrayLike<number>, i: number): [number, number, number] => [a[3 * i]!, a[3 * i + 1]!, a[3 * i + 2]!];
const quad = (a: ArrayLike<number>, i: number): [number, number, number, number] => [a[4 * i]!, a[4 * i + 1]!, a[4 * i + 2]!, a[4 * i + 3]!];

/** MuJoCo's default geom rgba: a geom that kept it shows its material's colour. */
const isDefaultRgba = (c: number[]): boolean => Math.abs(c[0]! - 0.5) < 1e-6 && Math.abs(c[1]! - 0.5) < 1e-6 && Math.abs(c[2]! - 0.5) < 1e-6 && c[3] === 1;

const colourOf = (m: MjModel, g: number): [number, number, number, number] => {
  const own = quad(m.geom_rgba as Float32Array, g);
  const mat = (m.geom_matid as Int32Array)[g]!;
  return mat >= 0 && isDefaultRgba(own) ? quad(m.mat_rgba as Float32Array, mat) : own;
};

/** The drawn geoms of a loaded model file (its name in the shipped assets), with its default camera. */
const sceneOf = (m: MjModel, model: string): FrameScene => {
  const type = m.geom_type as Int32Array;
  const geoms: SceneGeom[] = [];
  for (let g = 0; g < m.ngeom; g++) {
    if (!DRAWN.has(type[g]!)) continue;
    const rgba = colourOf(m, g);
    if (rgba[3] === 0) continue;
    geoms.push({
      type: type[g]!,
      size: triple(m.geom_size as Float64Array, g),
      rgba,
      body: (m.geom_bodyid as Int32Array)[g]!,
      pos: triple(m.geom_pos as Float64Array, g),
      quat: quad(m.geom_quat as Float64Array, g),
    });
  }
  return { model, nbody: m.nbody, geoms, camera: cameraFor(model) };
};

/** The scene of a shipped model named by a record's header (`model`); any other name is refused before a file is read. */
export const loadScene = async (model: string): Promise<FrameScene> => {
  cameraFor(model);
  return sceneOf(await loadModel(assetPath(model)), model);
};

export interface CameraPose {
  eye: [number, number, number];
  target: [number, number, number];
}

/** MuJoCo's free-camera frame (mjv_updateCamera): the eye sits `distance` behind lookat along the view direction. */
export const cameraPose = (c: FrameCamera, tracked: [number, number, number], lookatZ: number): CameraPose => {
  const az = (c.azimuth * Math.PI) / 180,
    el = (c.elevation * Math.PI) / 180;
  const forward = [Math.cos(el) * Math.cos(az), Math.cos(el) * Math.sin(az), Math.sin(el)];
  const target: [number, number, number] = [tracked[0], tracked[1], lookatZ];
  const eye = target.map((v, k) => v - c.distance * forward[k]!) as [number, number, number];
  return { eye, target };
};
