import { z } from "zod";
import { defineInterphyreTool } from "./interphyre-tool.ts";
import { n } from "./common.ts";
import { sceneLayout } from "./scene-layout.ts";

const xy = (p: readonly [number, number]) => `(${n(p[0])}, ${n(p[1])})`;
const side = (d: number, neg: string, pos: string) => `${n(Math.abs(d))} m ${d < 0 ? neg : pos}`;

/** Observations list at most this many supports; dynamic objects are few in every level (≤ 5). */
const MAX_SUPPORTS = 10;

export default defineInterphyreTool({
  name: "describe_scene_geometry",
  description:
    "Measure the level as it starts, without simulating: where the two goal objects are relative to each other, " +
    "what each dynamic object rests on and what lies directly below it, which bars balance on a single support " +
    "(pivot point and arm lengths), and the smallest gaps between static surfaces (walls included).",
  input: z.object({}),
  run: (session) => {
    const { scene, goal } = session.instance;
    const layout = sceneLayout(scene, goal);
    const g = layout.goal;
    const [a, b] = goal;
    const lines = [
      `Goal pair (centres): ${a} is ${side(g.centre_dx, "left of", "right of")} and ${side(g.centre_dy, "below", "above")} ${b}; ` +
        `centre distance ${n(g.centre_distance)} m, surface gap ${n(g.surface_gap)} m between ${xy(g.closest_points[0]!)} and ${xy(g.closest_points[1]!)}.`,
      "Supports (dynamic objects at the start):",
      ...layout.supports.slice(0, MAX_SUPPORTS).map((s) => {
        const on = s.rests_on.length ? `rests on ${s.rests_on.join(" and ")}` : "touches nothing below it";
        const below = s.directly_above ? `; directly below: ${s.directly_above.object} (clearance ${n(s.directly_above.clearance)} m)` : "";
        return `- ${s.object} ${on}${below}`;
      }),
      ...(layout.supports.length > MAX_SUPPORTS ? [`  … ${layout.supports.length - MAX_SUPPORTS} more in the result`] : []),
      layout.pivots.length ? "Pivots (a bar on a single support):" : "Pivots: none (no bar balances on a single support).",
      ...layout.pivots.map(
        (p) =>
          `- ${p.bar} on ${p.on} at ${xy(p.point)}, ${side(p.offset_from_centre, "left of", "right of")} its centre: ` +
          `left arm ${n(p.left_arm)} m, right arm ${n(p.right_arm)} m`,
      ),
      layout.static_gaps.total
        ? `Gaps between static surfaces (smallest ${layout.static_gaps.smallest.length} of ${layout.static_gaps.total}):`
        : "Gaps between static surfaces: none (every static surface touches its neighbours).",
      ...layout.static_gaps.smallest.map((s) => `- ${s.a} ↔ ${s.b}: ${n(s.gap)} m ${s.direction}, between ${xy(s.between[0]!)} and ${xy(s.between[1]!)}`),
    ];
    return { result: layout, observation: lines.join("\n") };
  },
});
