import { loadTask } from "../tasks/index.ts";
import type { TaskInstance } from "../task.ts";
import { recordEpisode } from "../trajectory/recorder.ts";
import type { TrajectoryRecord } from "../trajectory/record.ts";
import { type FrameScene, loadScene } from "./frame-scene.ts";

/** A MuJoCo task's recorded episode (trajectory/recorder.ts) and the scene of its model: what the frame renderer reads. */
export interface SteppedEpisode {
  scene: FrameScene;
  record: TrajectoryRecord;
}

export interface SteppedRequest {
  task: string;
  instance?: TaskInstance;
  /** At most this many env steps (fewer where the episode ends first). */
  steps: number;
  /** The action for the observation at step t (0-based). */
  act: (obs: Float64Array, t: number) => ArrayLike<number>;
  seed?: number;
}

/** Play a MuJoCo task from reset(seed) with `act`, recording every step, and load its model's scene. */
export const steppedEpisode = async (r: SteppedRequest): Promise<SteppedEpisode> => {
  const task = await loadTask(r.task);
  await task.prepare?.();
  let t = 0;
  const record = recordEpisode({
    task,
    instance: r.instance ?? task.generate(0),
    act: (obs) => Float64Array.from(r.act(obs, t++)),
    seed: r.seed ?? 0,
    maxSteps: r.steps,
  });
  return { scene: await loadScene(record.header.model), record };
};
