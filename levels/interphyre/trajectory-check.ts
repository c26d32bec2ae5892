import type { Task } from "../../src/family/family.ts";
import type { Trajectory } from "../../src/store/trajectory.ts";
import { placementOf } from "./action.ts";
import { createInstance } from "./instance.ts";
import { checkPlacement } from "./world/placement.ts";

/**
 * Why a trajectory handed back by another machine cannot be an episode of this task (LevelFamily.checks.trajectoryProblem):
 * its committed ball is not one the level's placement rule admits at this seed (docs/spec/interphyre.md §4.3):
 * inside the world and the level's bounds, its radius in the level's range (a tool clips a radius before the ball
 * is placed, so a committed one never lies outside), clear of every object. An episode commits only such a ball.
 */
export const placementProblem = (task: Task, t: Pick<Trajectory, "action">): string | undefined => {
  const action = placementOf(t.action);
  if (!action) return undefined;
  const instance = createInstance(task.level, task.seed);
  const [lo, hi] = instance.bounds.radius;
  if (!(action.radius >= lo && action.radius <= hi)) return `action.radius: ${action.radius} is outside level ${task.level}'s range [${lo}, ${hi}]`;
  const placed = checkPlacement(instance.scene, action, instance.bounds);
  if (placed.ok) return undefined;
  const field = placed.field === "x" || placed.field === "y" ? `action.${placed.field}` : "action";
  return `${field}: ${placed.reason} (got ${JSON.stringify(action)}); no episode commits such a ball`;
};
