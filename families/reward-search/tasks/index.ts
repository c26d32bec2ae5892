import { ConfigError } from "../../../src/errors.ts";
import type { RewardTask } from "../task.ts";
import acrobot from "./acrobot.ts";
import cartpole from "./cartpole.ts";
import cartpole_hold_x1 from "./cartpole_hold_x1.ts";
import lander from "./lander.ts";
import lander_left_half from "./lander_left_half.ts";
import mountain_car_continuous from "./mountain_car_continuous.ts";
import pendulum from "./pendulum.ts";
import walker from "./walker.ts";

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
} as const satisfies Record<string, RewardTask>;

export type TaskId = keyof typeof tasks;

export const listTasks = (): TaskId[] => Object.keys(tasks) as TaskId[];

export const getTask = (id: string): RewardTask => {
  if (!Object.hasOwn(tasks, id)) {
    throw new ConfigError(`reward-search task "${id}" is unknown; known tasks: ${listTasks().join(", ")}`);
  }
  return tasks[id as TaskId];
};
