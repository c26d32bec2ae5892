import { createInstance } from "../instance.ts";
import type { PlacementAction } from "../action.ts";
import { HEXA_HARNESS_HORIZON_STEPS } from "../world/constants.ts";
import { filmRollout, filmToGif } from "./rollout-film.ts";

/**
 * An episode's final rollout as the GIF `hexa inspect` embeds (docs/ARCHITECTURE.md §8): made in-process by the
 * drawer, or in a physics worker (physics-worker.ts), the same bytes either way.
 */

const ANIMATION_PX = 240;
/** 10 frames per simulated second: enough to follow the ball, a third of play's default frames. */
const STEPS_PER_FRAME = 6;
const HOLD_LAST_MS = 1500;

/** What an animation is made from: the level's seed and the placement the episode committed. */
export interface AnimationRequest {
  level: string;
  seed: number;
  action: PlacementAction;
}

/** The rollout of `action` on the seed's scene, with its motion trail, as GIF bytes. */
export const rolloutAnimation = (r: AnimationRequest): Uint8Array => {
  const inst = createInstance(r.level, r.seed);
  const film = filmRollout({ scene: inst.scene, goal: inst.goal, action: r.action }, { horizon: HEXA_HARNESS_HORIZON_STEPS, stepsPerFrame: STEPS_PER_FRAME });
  return filmToGif(film, { size: ANIMATION_PX, trail: true, holdLastMs: HOLD_LAST_MS }).bytes;
};
