import { parseSeed } from "../../src/family/seed.ts";
import { createRng } from "../../src/util/rng.ts";
import type { Scene } from "./world/scene.ts";
import { WORLD_ACTION_BOUNDS, type ActionBounds } from "./world/placement.ts";
import { getLevel } from "./levels/index.ts";

/** One task instance: a level at a seed, with everything the harness and the tools need. */
export interface LevelInstance {
  level: string;
  seed: number;
  scene: Scene;
  goal: readonly [string, string];
  bounds: ActionBounds;
  /** The level's default red-ball radius (the action may choose another). */
  defaultRadius: number;
  description: string;
}

export const createInstance = (levelId: string, seed: number): LevelInstance => {
  const def = getLevel(levelId);
  const s = parseSeed(seed);
  const { scene, redRadius } = def.generate(createRng(s));
  return {
    level: def.id,
    seed: s,
    scene,
    goal: def.goal,
    bounds: def.actionBounds ?? WORLD_ACTION_BOUNDS,
    defaultRadius: redRadius,
    description: def.description,
  };
};
