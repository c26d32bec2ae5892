import { createInstance } from "../instance.ts";
import { PlacementAction } from "../action.ts";
import { physicsHost } from "../physics-host.ts";
import { redBall } from "../world/simulation.ts";
import { actionOf, type EpisodeDrawer } from "../../../src/report/inspect/model.ts";
import { renderPicture } from "./picture.ts";
import { rolloutAnimation } from "./rollout-animation.ts";
import type { EpisodeRecord } from "../../../src/store/run-records.ts";

/**
 * The Interphyre episode view for `hexa inspect`: the scene with the red ball where the episode placed it
 * (a cheap SVG, every episode) and the final rollout as a GIF with its motion trail (only when asked: about
 * 0.2–1.5 s and 50–200 kB each). Memoised by episode id, so a live report redraws only new episodes;
 * `prepareAnimations` makes a report's GIFs ahead, side by side in the physics workers.
 */

const PICTURE_PX = 240;

/** Millimetres are finer than any placement region the bank learns. */
const round = (v: number) => Number(v.toFixed(3));

const dataUri = (mime: string, bytes: Uint8Array | string) => `data:${mime};base64,${Buffer.from(bytes).toString("base64")}`;

const actionRecord = (rec: EpisodeRecord) => {
  const parsed = PlacementAction.safeParse(actionOf(rec.trajectory));
  return parsed.success ? parsed.data : undefined;
};

/** The final rollout of an episode as GIF bytes, or undefined when it ended without an action. */
const animationGif = (rec: EpisodeRecord): Uint8Array | undefined => {
  const action = actionRecord(rec);
  return action ? rolloutAnimation({ level: rec.level, seed: rec.seed, action }) : undefined;
};

/** The GIF made in a physics worker; undefined when the worker could not make it (the drawer then makes it here). */
const animationInWorker = async (rec: EpisodeRecord): Promise<Uint8Array | undefined> => {
  const action = actionRecord(rec);
  if (!action) return undefined;
  try {
    return await physicsHost().animate({ level: rec.level, seed: rec.seed, action });
  } catch {
    return undefined;
  }
};

export const interphyreDrawer = (): EpisodeDrawer => {
  const images = new Map<string, string>();
  const animations = new Map<string, string | undefined>();
  const image = (rec: EpisodeRecord): string => {
    const key = `${rec.level}/${rec.seed}/${JSON.stringify(actionOf(rec.trajectory))}`;
    let uri = images.get(key);
    if (uri === undefined) {
      const inst = createInstance(rec.level, rec.seed);
      const action = actionRecord(rec);
      const shapes = action ? { ...inst.scene, red_ball: redBall(action) } : inst.scene;
      uri = dataUri("image/svg+xml", renderPicture(shapes, shapes, { size: PICTURE_PX }));
      images.set(key, uri);
    }
    return uri;
  };
  const animation = (rec: EpisodeRecord): string | undefined => {
    if (!animations.has(rec.id)) {
      const gif = animationGif(rec);
      animations.set(rec.id, gif && dataUri("image/gif", gif));
    }
    return animations.get(rec.id);
  };
  const prepareAnimations = async (recs: readonly EpisodeRecord[]): Promise<void> => {
    const todo = recs.filter((rec) => !animations.has(rec.id) && actionRecord(rec));
    const gifs = await Promise.all(todo.map(animationInWorker));
    todo.forEach((rec, i) => {
      const gif = gifs[i];
      if (gif) animations.set(rec.id, dataUri("image/gif", gif));
    });
  };
  return {
    prepareAnimations,
    drawEpisode: (rec, { animate }) => {
      const anim = animate ? animation(rec) : undefined;
      return { image: image(rec), ...(anim ? { animation: anim } : {}) };
    },
    renderAction: (action) => {
      const a = PlacementAction.safeParse(action);
      return a.success ? `red ball at (${round(a.data.x)}, ${round(a.data.y)}), radius ${round(a.data.radius)}` : JSON.stringify(action);
    },
    animationGif,
  };
};
