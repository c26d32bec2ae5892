import { z } from "zod";
import { ACTION_OBJECT, WALL_NAMES } from "../world/constants.ts";
import type { ContactEvent } from "../world/contacts.ts";
import { Simulation, type LiveObject } from "../world/simulation.ts";
import { defineInterphyreTool } from "./interphyre-tool.ts";
import { n, placeOrExplain, placementFields, round } from "./common.ts";
import { closest, shapesOf, wallShapes, type Pt } from "./scene-geometry.ts";

/** HExA's predict_first_contact looks 1.5 s ahead (docs/spec/interphyre.md §5.2). */
const WINDOW_STEPS = 90;

const isWall = (name: string): name is (typeof WALL_NAMES)[number] => (WALL_NAMES as readonly string[]).includes(name);

/** Velocity of the body's material point p (ω in rad/s); static bodies and walls do not move. */
const pointVelocity = (o: LiveObject | undefined, p: Pt): Pt =>
  o ? [o.vx - o.angular_velocity * (p[1] - o.y), o.vy + o.angular_velocity * (p[0] - o.x)] : [0, 0];

export default defineInterphyreTool({
  name: "predict_first_contact",
  description:
    `Place the red ball and find the first object it touches within ${WINDOW_STEPS} steps (walls count): the step, ` +
    "the approach speed (closing speed along the contact normal, just before impact), the contact point and the " +
    "normal (unit vector from the red ball into the other object). Reports when it touches nothing in that window.",
  input: z.object(placementFields),
  run: (session, a) => {
    const action = placeOrExplain(session, a);
    const window = Math.min(WINDOW_STEPS, session.horizon);
    const { scene, goal } = session.instance;
    const sim = new Simulation({ scene, goal, action }, { engine: session.engine });
    // Begin fires inside the step, after the solver has already changed velocities: measure the step before.
    let before = sim.state();
    let hit: ContactEvent | undefined;
    while (!hit && sim.stepCount < window) {
      const seen = sim.contacts.log.length;
      sim.step();
      hit = sim.contacts.log.slice(seen).find((e) => e.event === "begin" && (e.a === ACTION_OBJECT || e.b === ACTION_OBJECT));
      if (!hit) before = sim.state();
    }
    sim.close();
    session.lastContacts = { action, events: sim.contacts.log };
    if (!hit) {
      return {
        result: { contact: false, window_steps: window, action },
        observation: `No contact within ${window} steps: the red ball touches nothing (walls included) before step ${window}.`,
      };
    }
    const other = hit.a === ACTION_OBJECT ? hit.b : hit.a;
    const red = before[ACTION_OBJECT]!;
    const them = isWall(other) ? undefined : before[other];
    const shapes = isWall(other) ? wallShapes(other) : shapesOf(scene[other]!, them, true);
    const c = closest([{ kind: "circle", part: "ball", c: [red.x, red.y], r: action.radius }], shapes);
    const toward: Pt = [c.onB[0] - red.x, c.onB[1] - red.y];
    const inside = c.gap < -action.radius ? -1 : 1;
    const len = Math.hypot(toward[0], toward[1]) || 1;
    const normal: Pt = [(inside * toward[0]) / len, (inside * toward[1]) / len];
    const point: Pt = [(c.onA[0] + c.onB[0]) / 2, (c.onA[1] + c.onB[1]) / 2];
    const [vr, vo] = [pointVelocity(red, point), pointVelocity(them?.dynamic ? them : undefined, point)];
    const approach = (vr[0] - vo[0]) * normal[0] + (vr[1] - vo[1]) * normal[1];
    const part = shapes.length > 1 ? c.partB : undefined;
    const result = {
      contact: true,
      object: other,
      part: part ?? null,
      step: hit.step,
      approach_speed: round(approach, 3),
      point: [round(point[0], 3), round(point[1], 3)],
      normal: [round(normal[0], 3), round(normal[1], 3)],
      red_ball_velocity: [round(red.vx, 3), round(red.vy, 3)],
      action,
    };
    const observation =
      `First contact: the red ball touches ${other}${part ? ` (its ${part.replace("_", " ")})` : ""} at step ${hit.step}, ` +
      `approach speed ${n(approach)} m/s (red ball velocity (${n(red.vx)}, ${n(red.vy)}) just before). ` +
      `Contact point (${n(point[0])}, ${n(point[1])}), normal (${n(normal[0])}, ${n(normal[1])}) from the red ball into ${other}.`;
    return { result, observation };
  },
});
