import { z } from "zod";
import { ConfigError } from "../../../src/errors.ts";
import { basketSizeFromScale } from "./basket-geometry.ts";
import { BASKET_SENSOR_HEIGHT_RATIO, BASKET_SENSOR_MARGIN, MATERIAL } from "./constants.ts";

/**
 * A scene is a JSON object keyed by object name, with Interphyre's attribute names, so that Interphyre's
 * scene dicts load unchanged (docs/spec/interphyre.md §3.2). The object kind is not stored there: it follows from the
 * attributes (radius → ball, length → bar, bottom_width or scale → basket), or from an explicit `type`.
 */

const finite = z.number().refine(Number.isFinite, "must be a finite number");
const positive = finite.refine((v) => v > 0, "must be > 0");
const nonNegative = finite.refine((v) => v >= 0, "must be ≥ 0");

const common = {
  x: finite,
  y: finite,
  angle: finite.default(0).describe("degrees, counter-clockwise"),
  color: z.string().default("black"),
  dynamic: z.boolean().default(true),
  density: nonNegative.default(MATERIAL.density),
  friction: nonNegative.default(MATERIAL.friction),
  restitution: nonNegative.default(MATERIAL.restitution),
  linear_damping: nonNegative.default(MATERIAL.linear_damping),
  angular_damping: nonNegative.default(MATERIAL.angular_damping),
};

export const BallObject = z.object({ type: z.literal("ball").default("ball"), ...common, radius: positive });
export const BarObject = z.object({
  type: z.literal("bar").default("bar"),
  ...common,
  length: positive,
  thickness: positive.default(0.2),
});

const BASKET_ANCHORS = ["bottom_center", "center", "top_center", "bottom_left", "bottom_right", "top_left", "top_right"] as const;

export const BasketObject = z.object({
  type: z.literal("basket").default("basket"),
  ...common,
  scale: positive.optional(),
  bottom_width: positive,
  top_width: positive,
  height: positive,
  wall_thickness: positive,
  floor_thickness: positive,
  anchor: z.enum(BASKET_ANCHORS).default("bottom_center"),
  double_walls: z.boolean().default(false),
  enable_sensor: z.boolean().default(true),
  sensor_margin: nonNegative.default(BASKET_SENSOR_MARGIN),
  sensor_height_ratio: nonNegative.default(BASKET_SENSOR_HEIGHT_RATIO),
});

export type BallObject = z.infer<typeof BallObject>;
export type BarObject = z.infer<typeof BarObject>;
export type BasketObject = z.infer<typeof BasketObject>;
export type SceneObject = BallObject | BarObject | BasketObject;
export type Scene = Record<string, SceneObject>;
type ObjectKind = SceneObject["type"];

const kindOf = (raw: Record<string, unknown>): ObjectKind | undefined => {
  if (typeof raw.type === "string") return raw.type as ObjectKind;
  if ("radius" in raw) return "ball";
  if ("bottom_width" in raw || "scale" in raw) return "basket";
  if ("length" in raw) return "bar";
  return undefined;
};

const schemaOf = { ball: BallObject, bar: BarObject, basket: BasketObject } as const;

/** Parses one object; errors name `<where>.<name>.<field>`, the value and what is allowed. */
export const parseSceneObject = (name: string, raw: unknown, where = "scene"): SceneObject => {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new ConfigError(`${where}.${name}: must be an object of attributes (got ${JSON.stringify(raw)})`);
  }
  const obj = { ...(raw as Record<string, unknown>) };
  const kind = kindOf(obj);
  if (kind === undefined) {
    throw new ConfigError(
      `${where}.${name}: cannot tell the object type; give radius (ball), length (bar), ` +
        `bottom_width or scale (basket), or type: "ball" | "bar" | "basket"`,
    );
  }
  if (!(kind in schemaOf)) {
    throw new ConfigError(`${where}.${name}.type: unknown object type "${kind}"; use "ball", "bar" or "basket"`);
  }
  if (kind === "basket" && obj.bottom_width === undefined && typeof obj.scale === "number") {
    const size = basketSizeFromScale(obj.scale, obj.wall_thickness as number | undefined);
    for (const [k, v] of Object.entries(size)) if (obj[k] === undefined) obj[k] = v;
  }
  const parsed = schemaOf[kind].safeParse({ ...obj, type: kind });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join(".");
    const got = issue.path.length > 0 ? (obj as Record<string, unknown>)[String(issue.path[0])] : obj;
    if (got === undefined) throw new ConfigError(`${where}.${name}.${field}: is required (missing)`);
    throw new ConfigError(`${where}.${name}.${field}: ${issue.message} (got ${JSON.stringify(got)})`);
  }
  return parsed.data;
};

/** Parses a whole scene dict (Interphyre's format). Unknown attributes are ignored, as Interphyre's importer does. */
export const parseScene = (raw: unknown, where = "scene"): Scene => {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new ConfigError(`${where}: must be an object keyed by object name (got ${JSON.stringify(raw)})`);
  }
  const scene: Scene = {};
  for (const [name, obj] of Object.entries(raw)) scene[name] = parseSceneObject(name, obj, where);
  return scene;
};
