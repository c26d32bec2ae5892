/**
 * Writes the worlds bench:sim steps, as box2d-engine.ts builds them (walls, then the scene's bodies in build order,
 * each with its fixtures), to stdout in the line format box2d-native.cpp reads: the same scenes on native Box2D.
 * Usage: node --import tsx bench/native/dump-recipes.ts [scenes per level] > recipes.txt
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseSceneFile } from "../../families/interphyre/scene-check.ts";
import { getLevel } from "../../families/interphyre/levels/index.ts";
import { basketFixtures } from "../../families/interphyre/world/basket-geometry.ts";
import { box23Coefficient } from "../../families/interphyre/world/box2d-damping.ts";
import {
  degToRad,
  RADIUS_MAX,
  RADIUS_MIN,
  round8,
  WALL_CENTRE,
  WALL_FRICTION,
  WALL_HALF_LENGTH,
  WALL_HALF_THICKNESS,
  WALL_RESTITUTION,
} from "../../families/interphyre/world/constants.ts";
import type { PhysicsEngine } from "../../families/interphyre/world/engine.ts";
import { parseScene, type SceneObject } from "../../families/interphyre/world/scene.ts";
import { FIXTURES_DIR } from "../../test/support/fixtures.ts";
import { Simulation } from "../../families/interphyre/world/simulation.ts";

const LEVELS = ["catapult", "pass_the_parcel"];
const scenes = Number(process.argv[2] ?? 20);
const n = (v: number) => v.toPrecision(17);
const out: string[] = [];

const body = (dynamic: boolean, x: number, y: number, angle: number, linear: number, angular: number) =>
  out.push(`body ${dynamic ? 1 : 0} ${n(x)} ${n(y)} ${n(angle)} ${n(box23Coefficient(linear))} ${n(box23Coefficient(angular))}`);
const material = (m: { density: number; friction: number; restitution: number }, sensor: boolean) =>
  `${n(m.density)} ${n(m.friction)} ${n(m.restitution)} ${sensor ? 1 : 0}`;

/** An engine that only records what box2d-engine.ts would create. */
const recorder = (): PhysicsEngine => {
  const wall = { density: 0, friction: WALL_FRICTION, restitution: WALL_RESTITUTION };
  for (const [x, y, hx, hy] of [
    [-WALL_CENTRE, 0, WALL_HALF_THICKNESS, WALL_HALF_LENGTH],
    [WALL_CENTRE, 0, WALL_HALF_THICKNESS, WALL_HALF_LENGTH],
    [0, WALL_CENTRE, WALL_HALF_LENGTH, WALL_HALF_THICKNESS],
    [0, -WALL_CENTRE, WALL_HALF_LENGTH, WALL_HALF_THICKNESS],
  ] as const) {
    body(false, x, y, 0, 0, 0);
    out.push(`box ${n(hx)} ${n(hy)} 0 0 ${material(wall, false)}`);
  }
  const unused = () => {
    throw new Error("the recorder only builds worlds");
  };
  return {
    add(_name: string, o: SceneObject) {
      const damped = o.type !== "basket";
      body(o.dynamic, round8(o.x), round8(o.y), degToRad(o.angle), damped ? round8(o.linear_damping) : 0, damped ? round8(o.angular_damping) : 0);
      const m = { density: round8(o.density), friction: round8(o.friction), restitution: round8(o.restitution) };
      if (o.type === "ball") out.push(`circle ${n(round8(o.radius))} ${material(m, false)}`);
      else if (o.type === "bar") out.push(`box ${n(round8(round8(o.length) / 2))} ${n(round8(round8(o.thickness) / 2))} 0 0 ${material(m, false)}`);
      else
        for (const f of basketFixtures(o)) {
          const fm = f.sensor ? { density: 0, friction: m.friction, restitution: m.restitution } : m;
          if (f.kind === "box") out.push(`box ${n(f.hx)} ${n(f.hy)} ${n(f.cx)} ${n(f.cy)} ${material(fm, f.sensor)}`);
          else out.push(`poly ${f.vertices.length} ${f.vertices.flat().map(n).join(" ")} ${material(fm, false)}`);
        }
    },
    remove: unused,
    has: () => false,
    step: unused,
    state: unused,
    names: () => [],
    asleep: () => true,
    applyImpulse: unused,
    setVelocity: unused,
    setPose: unused,
    freeze: unused,
    destroy: () => {},
  };
};

for (const level of LEVELS) {
  const file = parseSceneFile(JSON.parse(readFileSync(join(FIXTURES_DIR, `${level}.json`), "utf8")), level);
  for (const e of file.entries.slice(0, scenes)) {
    const [x, y, r] = e.solution;
    out.push(`scene ${level} ${e.seed}`);
    new Simulation(
      { scene: parseScene(e.scene), goal: getLevel(level).goal, action: { x, y, radius: Math.min(RADIUS_MAX, Math.max(RADIUS_MIN, r)) } },
      { engine: recorder, recordContacts: false },
    );
    out.push("end");
  }
}
process.stdout.write(`${out.join("\n")}\n`);
