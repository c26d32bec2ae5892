import type { SceneObject } from "../world/scene.ts";
import { n, pos, round } from "./common.ts";

/** Colours are role labels, following PHYRE (docs/spec/interphyre.md §2.4). */
export const ROLE_OF_COLOR: Record<string, string> = {
  green: "goal object",
  red: "your action ball",
  blue: "goal object (dynamic)",
  purple: "goal surface (static)",
  gray: "dynamic prop",
  black: "static scenery",
};

export const sizeOf = (o: SceneObject): Record<string, number | string> => {
  switch (o.type) {
    case "ball":
      return { radius: round(o.radius) };
    case "bar":
      return { length: round(o.length), thickness: round(o.thickness), angle_deg: round(o.angle, 2) };
    case "basket":
      return {
        bottom_width: round(o.bottom_width),
        top_width: round(o.top_width),
        height: round(o.height),
        wall_thickness: round(o.wall_thickness),
        angle_deg: round(o.angle, 2),
        anchor: o.anchor,
      };
  }
};

const sizeText = (o: SceneObject): string => {
  switch (o.type) {
    case "ball":
      return `radius ${n(o.radius)}`;
    case "bar":
      return `length ${n(o.length)}, thickness ${n(o.thickness)}, angle ${n(o.angle, 1)}°`;
    case "basket":
      return `inner width ${n(o.bottom_width)} (bottom) to ${n(o.top_width)} (top), height ${n(o.height)}, wall ${n(o.wall_thickness, 3)}, angle ${n(o.angle, 1)}°, (x, y) is its ${o.anchor.replace("_", " ")}`;
  }
};

export const objectLine = (name: string, o: SceneObject): string =>
  `${name}: ${o.color} ${o.type}, ${o.dynamic ? "dynamic" : "static"}, at ${pos(o)}, ${sizeText(o)}`;
