import { createInstance } from "../instance.ts";
import { PlacementAction } from "../action.ts";
import { HEXA_HARNESS_HORIZON_STEPS } from "../world/constants.ts";
import { redBall } from "../world/simulation.ts";
import { actionOf, type EpisodeDrawer } from "../../../src/report/inspect/model.ts";
import { renderPicture } from "./picture.ts";
import { filmRollout, filmToGif } from "./rollout-film.ts";
import type { EpisodeRecord } from "../../../src/store/run-records.ts";

/**
 * The Interphyre episode view for `hexa inspect`: the scene with the red ball where the episode placed it
 * (a cheap SVG, every episode) and the final rollout as a GIF with its motion trail (only when asked: about
 * 0.2–1.5 s and 50–200 kB each). Memoised by episode id, so a live report redraws only new episodes.
 */

const PICTURE_PX = 240;
const ANIMATION_PX = 240;
/** 10 frames per simulated second: enough to follow the ball, a third of play's default frames. */
const STEPS_PER_FRAME = 6;
const HOLD_LAST_MS = 1500;

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
  if (!action) return undefined;
  const inst = createInstance(rec.level, rec.seed);
  const film = filmRollout({ scene: inst.scene, goal: inst.goal, action }, { horizon: HEXA_HARNESS_HORIZON_STEPS, stepsPerFrame: STEPS_PER_FRAME });
  return filmToGif(film, { size: ANIMATION_PX, trail: true, holdLastMs: HOLD_LAST_MS }).bytes;
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
  return {
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
