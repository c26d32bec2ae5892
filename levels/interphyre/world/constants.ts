/** Physical constants of the Interphyre world, each with its source (docs/spec/interphyre.md §1). */

/** Authoring bounds, interphyre config.py MIN_X..MAX_X. */
export const WORLD_MIN = -5;
export const WORLD_MAX = 5;

/** SimulationConfig.time_step. Box2D receives it as float32 (docs/spec/interphyre.md §1.3a). */
export const TIME_STEP_S = 1 / 60;
export const TIME_STEP_F32 = Math.fround(1 / 60);
export const VELOCITY_ITERATIONS = 15;
export const POSITION_ITERATIONS = 20;
export const GRAVITY_Y = -9.8;

/** default_success_time: the goal pair must touch this long. */
export const SUCCESS_HOLD_S = 3.0;

/** Interphyre's own horizon; the HExA harness used 2000. */
export const DEFAULT_HORIZON_STEPS = 1000;
export const HEXA_HARNESS_HORIZON_STEPS = 2000;

/** PRECISION = 8: every number is round(v, 8) before it reaches Box2D. */
const PRECISION = 8;

/** pybox2d converts degrees with float32 π; Math.PI loses seeds (docs/spec/interphyre.md §1.3a). */
const PI_F32 = Math.fround(Math.PI);

/** InterphyreObject defaults (objects/base.py). Baskets never set damping: 0 / 0. */
export const MATERIAL = {
  density: 0.25,
  friction: 0.5,
  restitution: 0.2,
  linear_damping: 0.0,
  angular_damping: 0.01,
} as const;

/** create_walls(world, 0.01, 10, 10): half-extents 0.01 × 10, Box2D's default fixture def. */
export const WALL_HALF_THICKNESS = 0.01;
export const WALL_HALF_LENGTH = 10;
export const WALL_CENTRE = 4.995;
export const WALL_FRICTION = 0.2;
export const WALL_RESTITUTION = 0;
export const WALL_NAMES = ["left_wall", "right_wall", "top_wall", "bottom_wall"] as const;

/** Action radius is clipped into this range before validation (docs/spec/interphyre.md §4.2). */
export const RADIUS_MIN = 0.1;
export const RADIUS_MAX = 1.5;

/** The one action object of every level. */
export const ACTION_OBJECT = "red_ball";

/** Basket sensor defaults (objects/basket.py). */
export const BASKET_SENSOR_MARGIN = 0.05;
export const BASKET_SENSOR_HEIGHT_RATIO = 0.3;

/**
 * round(v, 8) exactly as Python does it: toFixed rounds the exact binary value, and a tie at 8 decimals
 * cannot occur in binary floating point, so both agree on every input.
 */
export const round8 = (v: number): number => Number(v.toFixed(PRECISION)) + 0;

/** round(round(deg, 8) · π_f32 / 180, 8), Interphyre's degree conversion. */
export const degToRad = (deg: number): number => round8((round8(deg) * PI_F32) / 180);
