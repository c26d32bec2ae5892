import { gifPalette, tint, type Rgb } from "../../../src/report/gif.ts";
import { basketFixtures } from "../world/basket-geometry.ts";
import { WALL_NAMES, WORLD_MAX, WORLD_MIN } from "../world/constants.ts";
import type { BasketObject, Scene, SceneObject } from "../world/scene.ts";

/**
 * Scenes and live states as SVG, drawn the way Interphyre's renderer draws them (docs/spec/interphyre.md §6.2): white
 * background, y up, the world [−5, 5]² filling the whole image, walls and sensors skipped, bodies painted in
 * ascending order of body y so that higher objects lie on top. Pure: the CLI turns the string into files.
 */

/** Render colours by role label (docs/spec/interphyre.md §2.4); unknown labels are drawn black, as Interphyre does. */
export const COLOURS: Readonly<Record<string, Rgb>> = {
  green: [32, 201, 162],
  red: [235, 82, 52],
  blue: [32, 93, 214],
  purple: [81, 56, 150],
  gray: [200, 200, 200],
  black: [0, 0, 0],
};
const BACKGROUND: Rgb = [255, 255, 255];
/** Every colour a picture uses, kept exact in a rollout GIF. */
export const PALETTE = gifPalette(BACKGROUND, Object.values(COLOURS));

const colourOf = (label: string): Rgb => COLOURS[label] ?? COLOURS.black!;

/** A body's pose in scene vocabulary (angle in degrees): scene objects and `Simulation.state()` entries both fit. */
interface Pose {
  x: number;
  y: number;
  angle: number;
}

export type Poses = Readonly<Record<string, Pose>>;

export interface PictureOptions {
  /** Image width and height in pixels. */
  size: number;
  /**
   * Earlier poses, oldest first, drawn under the current frame as fading ghosts of the dynamic bodies, so
   * that a still picture shows where things came from.
   */
  trail?: readonly Poses[];
}

/** Radius line width and ghost opacity, in world units and [0, 1]: thin enough not to hide small balls. */
const RADIUS_LINE_M = 0.035;
const TRAIL_MAX_OPACITY = 0.3;
const EXTENT = WORLD_MAX - WORLD_MIN;

const num = (v: number): string => String(Number(v.toFixed(4)) + 0);
const rgb = ([r, g, b]: Rgb): string => `rgb(${r},${g},${b})`;

/** The colour mixed toward white by `t` (0: unchanged, 1: white). */

const polygon = (points: readonly (readonly [number, number])[]): string => `<polygon points="${points.map(([x, y]) => `${num(x)},${num(y)}`).join(" ")}"/>`;

/** Floor box and the two flared walls, in body coordinates; the sensor is never drawn. */
const basketShapes = (b: BasketObject): string[] =>
  basketFixtures(b).flatMap((f) => {
    if (f.sensor) return [];
    if (f.kind === "polygon") return [polygon(f.vertices)];
    return [
      polygon([
        [f.cx - f.hx, f.cy - f.hy],
        [f.cx + f.hx, f.cy - f.hy],
        [f.cx + f.hx, f.cy + f.hy],
        [f.cx - f.hx, f.cy + f.hy],
      ]),
    ];
  });

/** One body's shape in body coordinates; the enclosing group places it and sets its fill. */
const shapeOf = (o: SceneObject): string[] => {
  switch (o.type) {
    case "ball":
      return [`<circle r="${num(o.radius)}"/>`];
    case "bar":
      return [`<rect x="${num(-o.length / 2)}" y="${num(-o.thickness / 2)}" width="${num(o.length)}" height="${num(o.thickness)}"/>`];
    case "basket":
      return basketShapes(o);
  }
};

const placed = (pose: Pose, attrs: string, inner: string): string =>
  `<g transform="translate(${num(pose.x)} ${num(pose.y)}) rotate(${num(pose.angle)})" ${attrs}>${inner}</g>`;

/** A line that stands out on `colour`: lighter on dark colours, darker on light ones (gray). */
const contrast = (colour: Rgb): Rgb => {
  const [r, g, b] = colour;
  return 0.3 * r + 0.59 * g + 0.11 * b > 160 ? [Math.round(r * 0.6), Math.round(g * 0.6), Math.round(b * 0.6)] : tint(colour, 0.55);
};

/** A dynamic ball carries a radius line, so that its rotation shows from frame to frame. */
const body = (o: SceneObject, pose: Pose): string => {
  const colour = colourOf(o.color);
  let inner = shapeOf(o).join("");
  if (o.type === "ball" && o.dynamic) {
    const width = num(Math.min(RADIUS_LINE_M, o.radius / 4));
    inner += `<line x2="${num(o.radius * 0.85)}" stroke="${rgb(contrast(colour))}" stroke-width="${width}" stroke-linecap="round"/>`;
  }
  return placed(pose, `fill="${rgb(colour)}"`, inner);
};

const ghost = (o: SceneObject, pose: Pose, opacity: number): string =>
  placed(pose, `fill="${rgb(colourOf(o.color))}" fill-opacity="${num(opacity)}"`, shapeOf(o).join(""));

const drawable = (shapes: Scene, poses: Poses): [string, SceneObject, Pose][] =>
  Object.entries(poses)
    .filter(([name]) => !(WALL_NAMES as readonly string[]).includes(name) && shapes[name] !== undefined)
    .map(([name, pose]): [string, SceneObject, Pose] => [name, shapes[name]!, pose]);

/** Ascending body y (docs/spec/interphyre.md §6.2); ties by name so that the picture does not depend on key order. */
const paintOrder = <T extends [string, SceneObject, Pose]>(items: T[]): T[] =>
  items.sort((a, b) => a[2].y - b[2].y || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

/**
 * The picture of `poses` with the shapes, colours and body types of `shapes` (a scene, plus the red ball
 * when one is placed). Names in `poses` without a shape, and walls, are skipped.
 */
export const renderPicture = (shapes: Scene, poses: Poses, options: PictureOptions): string => {
  const trail = options.trail ?? [];
  const ghosts = trail.flatMap((earlier, i) => {
    const opacity = (TRAIL_MAX_OPACITY * (i + 1)) / (trail.length + 1);
    return paintOrder(drawable(shapes, earlier).filter(([, o]) => o.dynamic)).map(([, o, p]) => ghost(o, p, opacity));
  });
  const bodies = paintOrder(drawable(shapes, poses)).map(([, o, p]) => body(o, p));
  const size = num(options.size);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${EXTENT} ${EXTENT}">` +
    `<rect width="${EXTENT}" height="${EXTENT}" fill="${rgb(BACKGROUND)}"/>` +
    // World → image: x right from WORLD_MIN, y up from WORLD_MIN (the image's y runs down).
    `<g transform="matrix(1 0 0 -1 ${-WORLD_MIN} ${WORLD_MAX})">${ghosts.join("")}${bodies.join("")}</g>` +
    `</svg>\n`
  );
};

/** A scene as it is before the first step: every body at its scene pose. */
export const renderScene = (scene: Scene, options: PictureOptions): string => renderPicture(scene, scene, options);
