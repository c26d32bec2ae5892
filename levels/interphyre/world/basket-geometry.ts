import { round8 } from "./constants.ts";
import type { BasketObject } from "./scene.ts";

/** The basket's size from `scale`, as objects/basket.py derives it when no size is given. */
export const basketSizeFromScale = (s: number, wallThickness?: number) => {
  const wt = wallThickness ?? Math.min(0.175, 0.22 * s);
  return {
    scale: s,
    bottom_width: 1.083 * s,
    top_width: 1.083 * s * 1.25,
    height: 2 * s,
    wall_thickness: wt,
    floor_thickness: wt,
  };
};

/**
 * A basket's fixtures in body coordinates, as create_basket builds them (docs/spec/interphyre.md §2.3): a floor box,
 * two flared wall quads and a sensor box, all shifted by the anchor offset, every number rounded to 8
 * decimals in the same expressions. The engine, the placement check and the renderer share this one shape.
 */
export type BasketFixture =
  | { kind: "box"; part: "floor" | "sensor"; sensor: boolean; hx: number; hy: number; cx: number; cy: number }
  | { kind: "polygon"; part: "left_wall" | "right_wall"; sensor: false; vertices: [number, number][] };

const anchorOffset = (b: Pick<BasketObject, "anchor" | "bottom_width" | "top_width" | "height">): [number, number] => {
  switch (b.anchor) {
    case "bottom_center":
      return [0, 0];
    case "center":
      return [0, -b.height / 2];
    case "top_center":
      return [0, -b.height];
    case "bottom_left":
      return [b.bottom_width / 2, 0];
    case "bottom_right":
      return [-b.bottom_width / 2, 0];
    case "top_left":
      return [b.top_width / 2, -b.height];
    case "top_right":
      return [-b.top_width / 2, -b.height];
  }
};

export const basketFixtures = (b: BasketObject): BasketFixture[] => {
  const bw = round8(b.bottom_width);
  const tw = round8(b.top_width);
  const h = round8(b.height);
  const wt = round8(b.wall_thickness);
  const ft = round8(b.floor_thickness);
  const [rawAx, rawAy] = anchorOffset(b);
  const ax = round8(rawAx);
  const ay = round8(rawAy);
  const fixtures: BasketFixture[] = [
    { kind: "box", part: "floor", sensor: false, hx: round8((bw + 2 * wt) / 2), hy: round8(ft / 2), cx: ax, cy: round8(ay + ft / 2) },
    {
      kind: "polygon",
      part: "left_wall",
      sensor: false,
      vertices: [
        [round8(-bw / 2 - wt + ax), round8(ft + ay)],
        [round8(-tw / 2 - wt + ax), round8(ft + h + ay)],
        [round8(-tw / 2 + ax), round8(ft + h + ay)],
        [round8(-bw / 2 + ax), round8(ft + ay)],
      ],
    },
    {
      kind: "polygon",
      part: "right_wall",
      sensor: false,
      vertices: [
        [round8(bw / 2 + wt + ax), round8(ft + ay)],
        [round8(bw / 2 + ax), round8(ft + ay)],
        [round8(tw / 2 + ax), round8(ft + h + ay)],
        [round8(tw / 2 + wt + ax), round8(ft + h + ay)],
      ],
    },
  ];
  if (b.enable_sensor) {
    const sensorHeight = round8(h * round8(b.sensor_height_ratio));
    const sensorWidth = round8(bw - 2 * round8(b.sensor_margin));
    const sensorCentreY = round8(ft + sensorHeight / 2);
    fixtures.push({
      kind: "box",
      part: "sensor",
      sensor: true,
      hx: round8(sensorWidth / 2),
      hy: round8(sensorHeight / 2),
      cx: ax,
      cy: round8(ay + sensorCentreY),
    });
  }
  return fixtures;
};
