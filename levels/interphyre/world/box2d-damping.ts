import { TIME_STEP_F32 } from "./constants.ts";

const f32 = Math.fround;

/** Box2D 2.3's damping factor in float32: clamp(1 − h·c, 0, 1) (docs/spec/interphyre.md §1.3a). */
export const factor23 = (c: number): number => Math.min(1, Math.max(0, f32(1 - f32(TIME_STEP_F32 * f32(c)))));

/** Box2D 2.4.1's damping factor in float32: 1 / (1 + h·c). */
export const factor24 = (c: number): number => f32(1 / f32(1 + f32(TIME_STEP_F32 * f32(c))));

/**
 * The damping coefficient to give Box2D 2.4.1 so that its formula multiplies by 2.3's factor. At
 * Interphyre's coefficients (0 and 0.01) the two formulas already agree in float32, bit for bit. Elsewhere
 * c / (1 − h·c) solves the equation; 1 / (1 + x) reaches only every other float32 below 1, so the factor
 * may then differ from 2.3's by one float32 step. A factor of 0 (h·c ≥ 1) is approached by the largest float32.
 */
export const box23Coefficient = (c: number): number => {
  if (factor24(c) === factor23(c)) return c;
  const hc = TIME_STEP_F32 * c;
  return hc >= 1 ? 3.4028234663852886e38 : f32(c / (1 - hc));
};
