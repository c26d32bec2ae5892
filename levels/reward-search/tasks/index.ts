import { keyedRegistry } from "../../../src/family/registry.ts";
import type { RewardTask } from "../task.ts";
import acrobot from "./acrobot.ts";
import ant from "./ant.ts";
import ant_along_y from "./ant_along_y.ts";
import cartpole from "./cartpole.ts";
import cartpole_hold_x1 from "./cartpole_hold_x1.ts";
import half_cheetah from "./half_cheetah.ts";
import half_cheetah_backward from "./half_cheetah_backward.ts";
import hopper from "./hopper.ts";
import hopper_front_flip from "./hopper_front_flip.ts";
import humanoid from "./humanoid.ts";
import inverted_pendulum from "./inverted_pendulum.ts";
import lander from "./lander.ts";
import lander_left_half from "./lander_left_half.ts";
import mountain_car_continuous from "./mountain_car_continuous.ts";
import pendulum from "./pendulum.ts";
import walker from "./walker.ts";
import walker2d from "./walker2d.ts";

/** Every reward-search task, keyed by id. A new task is one file here plus one line below. */
export const tasks = {
  cartpole,
  pendulum,
  mountain_car_continuous,
  acrobot,
  lander,
  walker,
  cartpole_hold_x1,
  lander_left_half,
  hopper,
  walker2d,
  half_cheetah,
  ant,
  humanoid,
  inverted_pendulum,
  hopper_front_flip,
  half_cheetah_backward,
  ant_along_y,
} as const satisfies Record<string, RewardTask>;

type TaskId = keyof typeof tasks;

const registry = keyedRegistry<RewardTask, TaskId>("reward-search task", tasks);

export const listTasks = registry.list;

export const getTask = registry.get;

/** A task with what its envs need loaded in this thread (task.prepare: MuJoCo's wasm module and model). */
export const loadTask = async (id: string): Promise<RewardTask> => {
  const task = getTask(id);
  await task.prepare?.();
  return task;
};
