import { SUCCESS_HOLD_S } from "../world/constants.ts";
import type { ContactEvent } from "../world/contacts.ts";
import type { Scene, SceneObject } from "../world/scene.ts";

/** Plain-text views of a scene and of a rollout's contacts, for people at a terminal. */

const f2 = (v: number): string => (Object.is(v, -0) ? 0 : v).toFixed(2);
const deg = (v: number): string => `${(Object.is(v, -0) ? 0 : v).toFixed(1)}°`;

const sizeOf = (o: SceneObject): string => {
  switch (o.type) {
    case "ball":
      return `radius ${f2(o.radius)}`;
    case "bar":
      return `length ${f2(o.length)} thickness ${f2(o.thickness)} angle ${deg(o.angle)}`;
    case "basket":
      return (
        `bottom ${f2(o.bottom_width)} top ${f2(o.top_width)} height ${f2(o.height)} wall ${f2(o.wall_thickness)} ` + `angle ${deg(o.angle)} anchor ${o.anchor}`
      );
  }
};

/** One line per object, in build order (sorted names): name, colour, type, body type, position, size. */
export const sceneLines = (scene: Scene): string[] => {
  const names = Object.keys(scene).sort();
  const width = Math.max(...names.map((n) => n.length), 4);
  return names.map((name) => {
    const o = scene[name]!;
    const at = `(${f2(o.x)}, ${f2(o.y)})`;
    return [name.padEnd(width), o.color.padEnd(6), o.type.padEnd(6), (o.dynamic ? "dynamic" : "static").padEnd(7), at.padEnd(14), sizeOf(o)].join("  ");
  });
};

export interface SceneHeader {
  level: string;
  seed: number;
  goal: readonly [string, string];
  defaultRadius: number;
}

export const sceneHeader = (h: SceneHeader): string[] => [
  `${h.level} seed ${h.seed}`,
  `goal: ${h.goal[0]} touches ${h.goal[1]} for ${SUCCESS_HOLD_S} s`,
  `default red ball radius: ${f2(h.defaultRadius)}`,
];

/**
 * Body pairs that touched, each once, in order of their first begin (ties by name), at most `cap` of them,
 * then a line saying how many were left out.
 */
export const contactLines = (log: readonly ContactEvent[], cap: number): string[] => {
  const first = new Map<string, { key: string; step: number; a: string; b: string; begins: number }>();
  for (const e of log) {
    if (e.event !== "begin") continue;
    const [a, b] = e.a < e.b ? [e.a, e.b] : [e.b, e.a];
    const key = `${a}|${b}`;
    const seen = first.get(key);
    if (seen) seen.begins++;
    else first.set(key, { key, step: e.step, a, b, begins: 1 });
  }
  const pairs = [...first.values()].sort((p, q) => p.step - q.step || (p.key < q.key ? -1 : 1));
  const lines = pairs.slice(0, cap).map((p) => `  step ${String(p.step).padStart(5)}  ${p.a} – ${p.b}${p.begins > 1 ? `  (${p.begins} begins)` : ""}`);
  if (pairs.length > cap) lines.push(`  … and ${pairs.length - cap} more pairs`);
  return lines;
};
