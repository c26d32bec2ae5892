import type { BallObject, BarObject, BasketObject } from "./world/scene.ts";
import { basketSizeFromScale } from "./world/basket-geometry.ts";
import { MATERIAL } from "./world/constants.ts";

/**
 * Builders for level objects in Interphyre's vocabulary, mirroring the constructors its levels call
 * (docs/spec/interphyre.md §2). Angles are degrees. Every builder fills the shared material defaults.
 */

export interface Look {
  color?: string;
  dynamic?: boolean;
}

const material = (look: Look) => ({
  color: look.color ?? "black",
  dynamic: look.dynamic ?? true,
  density: MATERIAL.density,
  friction: MATERIAL.friction,
  restitution: MATERIAL.restitution,
  linear_damping: MATERIAL.linear_damping,
  angular_damping: MATERIAL.angular_damping,
});

export const ball = (x: number, y: number, radius: number, look: Look = {}): BallObject => ({
  type: "ball",
  x,
  y,
  radius,
  angle: 0,
  ...material(look),
});

export interface BarLook extends Look {
  thickness?: number;
}

/** Bar(x, y, length, angle, thickness): centre, length, angle in degrees. */
export const bar = (x: number, y: number, length: number, angle = 0, look: BarLook = {}): BarObject => ({
  type: "bar",
  x,
  y,
  length,
  thickness: look.thickness ?? 0.2,
  angle,
  ...material(look),
});

/** Bar(left=, right=, y=): horizontal. */
export const barLeftRight = (left: number, right: number, y: number, look: BarLook = {}): BarObject => bar((left + right) / 2, y, right - left, 0, look);

/** Bar(top=, bottom=, x=): vertical (angle 90). */
export const barTopBottom = (top: number, bottom: number, x: number, look: BarLook = {}): BarObject => bar(x, (top + bottom) / 2, top - bottom, 90, look);

/** Bar(x1, y1, x2, y2) / from_endpoints: midpoint, hypot, atan2. */
export const barFromEndpoints = (x1: number, y1: number, x2: number, y2: number, look: BarLook = {}): BarObject =>
  bar((x1 + x2) / 2, (y1 + y2) / 2, Math.hypot(x2 - x1, y2 - y1), (Math.atan2(y2 - y1, x2 - x1) * 180) / Math.PI, look);

/** from_corner(cx, cy, angle, length): centre = corner + (L/2)(cos a, sin a). */
export const barFromCorner = (cx: number, cy: number, angle: number, length: number, look: BarLook = {}): BarObject => {
  const a = (angle * Math.PI) / 180;
  return bar(cx + (length / 2) * Math.cos(a), cy + (length / 2) * Math.sin(a), length, angle, look);
};

/** A bar's derived endpoints and extents; like Interphyre's properties they ignore thickness. */
export const barEnds = (b: Pick<BarObject, "x" | "y" | "length" | "angle">) => {
  const a = (b.angle * Math.PI) / 180;
  const dx = (b.length / 2) * Math.cos(a);
  const dy = (b.length / 2) * Math.sin(a);
  const x1 = b.x - dx;
  const y1 = b.y - dy;
  const x2 = b.x + dx;
  const y2 = b.y + dy;
  return {
    x1,
    y1,
    x2,
    y2,
    left: Math.min(x1, x2),
    right: Math.max(x1, x2),
    bottom: Math.min(y1, y2),
    top: Math.max(y1, y2),
  };
};

export interface BasketLook extends Look {
  angle?: number;
  anchor?: BasketObject["anchor"];
  wallThickness?: number;
}

/** Basket(x, y, scale=s, ...): the size follows from the scale (docs/spec/interphyre.md §2.3). */
export const basket = (x: number, y: number, scale: number, look: BasketLook = {}): BasketObject => ({
  type: "basket",
  x,
  y,
  angle: look.angle ?? 0,
  ...material({ color: look.color ?? "gray", dynamic: look.dynamic ?? true }),
  ...basketSizeFromScale(scale, look.wallThickness),
  anchor: look.anchor ?? "bottom_center",
  double_walls: false,
  enable_sensor: true,
  sensor_margin: 0.05,
  sensor_height_ratio: 0.3,
});

/** The full-width goal floor most levels share: Bar(left=−5, right=5, y=−4.9), purple, static. */
export const purpleGround = (): BarObject => barLeftRight(-5, 5, -4.9, { color: "purple", dynamic: false });

/**
 * Python's round(x, digits), which several levels apply to drawn values: the exact binary value rounded to
 * the nearest, exact ties to even. toFixed also rounds the exact value but sends ties away from zero.
 */
export const pyRound = (x: number, digits: number): number => {
  const exact = Math.abs(x).toFixed(Math.min(100, digits + 60));
  const cut = exact.indexOf(".") + 1 + digits;
  const tie = /^50*$/.test(exact.slice(cut));
  const lastDigitEven = Number(exact[digits === 0 ? cut - 2 : cut - 1]) % 2 === 0;
  if (tie && lastDigitEven) return Math.sign(x) * Number(exact.slice(0, digits === 0 ? cut - 1 : cut));
  return Number(x.toFixed(digits));
};
