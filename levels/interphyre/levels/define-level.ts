import type { Rng } from "../../../src/util/rng.ts";
import type { Scene } from "../world/scene.ts";
import type { ActionBounds } from "../world/placement.ts";

/** One Interphyre level: a seeded generator of scenes plus the goal that every seed of it shares. */
export interface LevelDef {
  /** Equals the file name, as in Interphyre. */
  id: string;
  /** The pair that must touch for SUCCESS_HOLD_S seconds. */
  goal: readonly [string, string];
  /** Factual text for the actor: what is in the scene and what must touch. No strategy hints. */
  description: string;
  /** Only flagpole_sitta narrows them; everything else uses the world's. */
  actionBounds?: ActionBounds;
  /** Draws a scene in the source's RNG order. `redRadius` is the level's default action radius. */
  generate: (rng: Rng) => { scene: Scene; redRadius: number };
}

export const defineLevel = (def: LevelDef): LevelDef => def;
