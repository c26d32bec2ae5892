import type { TaskPrompt } from "../../src/family/task-env.ts";
import { SUCCESS_HOLD_S, TIME_STEP_S } from "./world/constants.ts";
import type { LevelInstance } from "./instance.ts";

const STEPS_PER_S = Math.round(1 / TIME_STEP_S);
const HOLD_STEPS = Math.round(SUCCESS_HOLD_S / TIME_STEP_S);

/** Interphyre's part of the actor's prompt: the puzzle, the action and how an episode ends (from the enforced horizon). */
export const interphyrePrompt = (inst: LevelInstance, horizon: number, maxTurns: number): TaskPrompt => {
  const b = inst.bounds;
  return {
    noun: "puzzle",
    role: "You are an experimentalist solving a 2-D physics puzzle by running experiments in a simulator.",
    sections: [
      `## The puzzle: ${inst.level} (seed ${inst.seed})`,
      inst.description,
      `Success: ${inst.goal[0]} and ${inst.goal[1]} stay in contact for ${SUCCESS_HOLD_S} s (${HOLD_STEPS} steps) within ${horizon} steps (${STEPS_PER_S} steps = 1 s).`,
      "",
      "## Your action",
      `You place one red ball, then the world runs. Choose x in [${b.x[0]}, ${b.x[1]}], y in [${b.y[0]}, ${b.y[1]}] (y points up; gravity pulls down) and radius in [${b.radius[0]}, ${b.radius[1]}] (the level's default is ${inst.defaultRadius.toFixed(2)}).`,
      "The ball must lie inside the world and must not touch any object; an invalid placement is rejected and not simulated.",
    ],
    rules: [
      "If a full rollout (simulate_action) succeeds, the episode ends at once as a success with that placement.",
      "Call finish(x, y, radius) to commit an answer: it is scored by that same full rollout, so commit a placement you have seen succeed (trace_objects and simulate_partial report a success without ending the episode) or else the best one you have seen. If the turns run out, the episode fails.",
    ],
    task: `Solve ${inst.level} seed ${inst.seed}: make ${inst.goal[0]} touch ${inst.goal[1]} for ${SUCCESS_HOLD_S} s. You have ${maxTurns} turns; start experimenting.`,
    experiment: "simulation",
  };
};
