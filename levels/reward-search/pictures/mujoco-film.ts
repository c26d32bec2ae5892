import type { MjModel } from "mujoco-js";
import { ConfigError } from "../../../src/errors.ts";
import type { MujocoVecEnv } from "../envs/mujoco/mujoco-env.ts";
import type { RewardTask, TaskInstance } from "../task.ts";

/**
 * A MuJoCo rollout filmed as a 2-D projection of its bodies (docs/spec/reward-search.md §2, pictures): every
 * few steps, each geom of the model (the floor plane aside) as a segment with a radius, projected on the
 * side view (x, z) or, for tasks that move in the plane, the top view (x, y). A capsule or cylinder is the
 * segment between its end caps, a sphere a point, a box its longest axis.
 */

/** mjtGeom: the types drawn (planes, height fields and meshes are not). */
const GEOM = { plane: 0, sphere: 2, capsule: 3, ellipsoid: 4, cylinder: 5, box: 6 } as const;

type FilmView = "side" | "top";

export interface BodyFilm {
  task: string;
  view: FilmView;
  /** Seconds of simulated time per env step. */
  dt: number;
  /** One entry per drawn geom: its radius [m] and whether it belongs to the world (rail, not a body part). */
  geoms: Array<{ radius: number; world: boolean }>;
  /** Per frame: the env step, the root body's projected position, and per geom x1, y1, x2, y2 (projected, m). */
  frames: Array<{ step: number; root: [number, number]; segments: Float64Array }>;
  /** F of the filmed episode (the task's fitness summed over its steps). */
  fitness: number;
  steps: number;
}

/** Tasks whose bodies move in the ground plane are seen from above; the planar ones from the side. */
const viewOf = (task: Pick<RewardTask, "id">): FilmView => (task.id.startsWith("ant") ? "top" : "side");

const drawnGeoms = (m: MjModel): number[] => {
  const type = m.geom_type as Int32Array;
  const out: number[] = [];
  for (let g = 0; g < m.ngeom; g++) if (type[g] !== GEOM.plane && type[g]! <= GEOM.box) out.push(g);
  return out;
};

/** The segment of geom g in world coordinates: centre ± half-length along its axis. */
const segmentOf = (m: MjModel, xpos: Float64Array, xmat: Float64Array, g: number): [number[], number[]] => {
  const type = (m.geom_type as Int32Array)[g]!;
  const size = m.geom_size as Float64Array;
  const c = [xpos[3 * g]!, xpos[3 * g + 1]!, xpos[3 * g + 2]!];
  let axis = 2,
    half = 0;
  if (type === GEOM.capsule || type === GEOM.cylinder) half = size[3 * g + 1]!;
  else if (type === GEOM.box || type === GEOM.ellipsoid) {
    axis = [0, 1, 2].reduce((a, b) => (size[3 * g + b]! > size[3 * g + a]! ? b : a));
    half = size[3 * g + axis]!;
  }
  // xmat is row-major: the local axis k in world coordinates is column k.
  const dir = [xmat[9 * g + axis]!, xmat[9 * g + 3 + axis]!, xmat[9 * g + 6 + axis]!];
  return [c.map((v, k) => v - half * dir[k]!), c.map((v, k) => v + half * dir[k]!)];
};

const radiusOf = (m: MjModel, g: number): number => {
  const type = (m.geom_type as Int32Array)[g]!;
  const size = m.geom_size as Float64Array;
  if (type === GEOM.box || type === GEOM.ellipsoid) {
    const s = [size[3 * g]!, size[3 * g + 1]!, size[3 * g + 2]!].sort((a, b) => a - b);
    return s[1]!;
  }
  return size[3 * g]!;
};

export interface FilmRequest {
  task: RewardTask;
  instance: TaskInstance;
  /** Greedy (or any) actions for one env's observation. */
  act: (obs: Float64Array) => Float64Array | Int32Array;
  seed: number;
  /** Env steps between frames. */
  stepsPerFrame: number;
}

/** Roll one episode (to termination or the time limit) and keep the projected geoms every stepsPerFrame steps; the task must be prepared in this thread. */
export const filmMujoco = (r: FilmRequest): BodyFilm => {
  const { task } = r;
  const env = task.makeEnv(r.instance, 1) as Partial<MujocoVecEnv>;
  if (typeof env.model !== "function" || typeof env.data !== "function") {
    env.close?.();
    throw new ConfigError(`task ${task.id} is not a MuJoCo task; rollout pictures are drawn for the MuJoCo tasks only`);
  }
  const mj = env as MujocoVecEnv;
  const view = viewOf(task);
  try {
    let obs = mj.reset(r.seed);
    const m = mj.model();
    const geoms = drawnGeoms(m);
    const bodyOf = m.geom_bodyid as Int32Array;
    const frame = (step: number): BodyFilm["frames"][number] => {
      // Views are fetched per frame: a heap growth empties views fetched earlier.
      const d = mj.data(0);
      const xpos = d.geom_xpos as Float64Array,
        xmat = d.geom_xmat as Float64Array,
        bpos = d.xpos as Float64Array;
      const segments = new Float64Array(geoms.length * 4);
      geoms.forEach((g, k) => {
        const [a, b] = segmentOf(m, xpos, xmat, g);
        const j = view === "side" ? 2 : 1;
        segments.set([a[0]!, a[j]!, b[0]!, b[j]!], 4 * k);
      });
      return { step, root: [bpos[3]!, bpos[3 + (view === "side" ? 2 : 1)]!], segments };
    };
    const frames = [frame(0)];
    let fitness = 0,
      steps = 0;
    for (let t = 1; t <= task.maxEpisodeSteps; t++) {
      const b = mj.step(r.act(obs));
      fitness += b.fitness[0]!;
      steps = t;
      // The env has already reset an episode that ended: its MjData no longer shows the last state.
      if (b.terminated[0] || b.truncated[0]) break;
      if (t % r.stepsPerFrame === 0) frames.push(frame(t));
      obs = b.obs;
    }
    return {
      task: task.id,
      view,
      dt: mj.stepSeconds(),
      geoms: geoms.map((g) => ({ radius: radiusOf(m, g), world: bodyOf[g] === 0 })),
      frames,
      fitness,
      steps,
    };
  } finally {
    mj.close();
  }
};
