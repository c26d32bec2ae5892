/**
 * Writes the worlds bench:sim steps, from the recipes box2d-engine.ts builds them from (box2d-recipe.ts: walls,
 * then the scene's bodies in build order, each with its fixtures), to stdout in the line format box2d-native.cpp reads: the same scenes on native Box2D.
 * Usage: node --import tsx bench/native/dump-recipes.ts [scenes per level] > recipes.txt
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseSceneFile } from "../../levels/interphyre/scene-check.ts";
import { getLevel } from "../../levels/interphyre/levels/index.ts";
import { type BodyRecipe, bodyRecipe, WALL_RECIPES } from "../../levels/interphyre/world/box2d-recipe.ts";
import { RADIUS_MAX, RADIUS_MIN } from "../../levels/interphyre/world/constants.ts";
import type { PhysicsEngine } from "../../levels/interphyre/world/engine.ts";
import { parseScene } from "../../levels/interphyre/world/scene.ts";
import { Simulation } from "../../levels/interphyre/world/simulation.ts";
import { FIXTURES_DIR } from "../../test/support/fixtures.ts";

const LEVELS = ["catapult", "pass_the_parcel"];
const scenes = Number(process.argv[2] ?? 20);
const n = (v: number) => v.toPrecision(17);
const out: string[] = [];

/** A body and its fixtures as lines: `body`, then `circle` / `box` (centre 0 0 when it has none) / `poly`, each with its material. */
const write = (r: BodyRecipe): void => {
  out.push(`body ${r.dynamic ? 1 : 0} ${[r.x, r.y, r.angle, r.linearDamping, r.angularDamping].map(n).join(" ")}`);
  for (const f of r.fixtures) {
    const s = f.shape;
    const shape =
      s.kind === "circle"
        ? `circle ${n(s.radius)}`
        : s.kind === "box"
          ? `box ${[s.hx, s.hy, ...(s.centre ?? [0, 0])].map(n).join(" ")}`
          : `poly ${s.vertices.length} ${s.vertices.flat().map(n).join(" ")}`;
    out.push(`${shape} ${[f.density, f.friction, f.restitution].map(n).join(" ")} ${f.sensor ? 1 : 0}`);
  }
};

/** An engine that only writes the bodies box2d-engine.ts would create, in the order Simulation adds them. */
const recorder = (): PhysicsEngine => {
  for (const wall of WALL_RECIPES) write(wall);
  const unused = () => {
    throw new Error("the recorder only builds worlds");
  };
  return {
    add: (_name, o) => write(bodyRecipe(o)),
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
