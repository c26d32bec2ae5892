import { z } from "zod";
import type { PhysicsEngine } from "./engine.ts";
import { parseSceneObject } from "./scene.ts";

/** A change made to a paused world before it continues (docs/spec/interphyre.md §5.1 `set`, `impulse`, `add`, `remove`). */
const name = z.string().min(1).describe("object name");
export const Intervention = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("impulse"), object: name, ix: z.number(), iy: z.number() }),
  z.object({
    kind: z.literal("set_velocity"),
    object: name,
    vx: z.number(),
    vy: z.number(),
    angular_velocity: z.number().default(0),
  }),
  z.object({
    kind: z.literal("set_position"),
    object: name,
    x: z.number(),
    y: z.number(),
    angle: z.number().optional().describe("degrees; unchanged when omitted"),
  }),
  z.object({ kind: z.literal("freeze"), object: name }),
  z.object({ kind: z.literal("remove"), object: name }),
  z.object({
    kind: z.literal("add"),
    object: name,
    spec: z.record(z.string(), z.unknown()).describe("attributes in scene vocabulary, e.g. {x, y, radius} for a ball or {x, y, length, angle} for a bar"),
  }),
]);
export type Intervention = z.infer<typeof Intervention>;

export const applyIntervention = (engine: PhysicsEngine, iv: Intervention): void => {
  switch (iv.kind) {
    case "impulse":
      return engine.applyImpulse(iv.object, iv.ix, iv.iy);
    case "set_velocity":
      return engine.setVelocity(iv.object, iv.vx, iv.vy, iv.angular_velocity);
    case "set_position": {
      const angle = iv.angle === undefined ? engine.state(iv.object).angle : (iv.angle * Math.PI) / 180;
      return engine.setPose(iv.object, iv.x, iv.y, angle);
    }
    case "freeze":
      return engine.freeze(iv.object);
    case "remove":
      return engine.remove(iv.object);
    case "add":
      return engine.add(iv.object, parseSceneObject(iv.object, iv.spec, "intervention.add"));
  }
};
