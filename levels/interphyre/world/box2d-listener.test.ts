import { describe, expect, it } from "vitest";
import { box2d } from "./box2d-wasm.ts";
import { contactListener, quietSolveCallbacks } from "./box2d-listener.ts";

interface Calls {
  events: string[];
  solves: number;
}

/** Ten balls dropped on a floor and onto each other: contacts begin, rest, bounce and end. */
const dropBalls = (listener: Box2D.JSContactListener, calls: Calls): void => {
  const world = new box2d.b2World(new box2d.b2Vec2(0, -9.8));
  world.SetContactListener(listener);
  const def = new box2d.b2BodyDef();
  const names = new Map<number, string>();
  const floor = new box2d.b2PolygonShape();
  floor.SetAsBox(5, 0.1);
  names.set(box2d.getPointer(world.CreateBody(def).CreateFixture(floor, 0)), "floor");
  const ball = new box2d.b2CircleShape();
  ball.set_m_radius(0.3);
  def.set_type(box2d.b2_dynamicBody);
  for (let i = 0; i < 10; i++) {
    def.set_position(new box2d.b2Vec2((i % 3) * 0.25 - 0.25, 1 + i * 0.7));
    const fixture = world.CreateBody(def).CreateFixture(ball, 1);
    fixture.SetRestitution(0.5);
    names.set(box2d.getPointer(fixture), `ball${i}`);
  }
  const name = (c: Box2D.b2Contact | number) => {
    const contact = box2d.wrapPointer(c as number, box2d.b2Contact);
    return `${names.get(box2d.getPointer(contact.GetFixtureA()))}-${names.get(box2d.getPointer(contact.GetFixtureB()))}`;
  };
  listener.BeginContact = (c) => void calls.events.push(`begin ${name(c)}`);
  listener.EndContact = (c) => void calls.events.push(`end ${name(c)}`);
  listener.PreSolve = () => void calls.solves++;
  listener.PostSolve = () => void calls.solves++;
  for (let i = 0; i < 300; i++) world.Step(1 / 60, 15, 20);
  box2d.destroy(world);
  box2d.destroy(listener);
};

describe("the box2d-wasm contact listener", () => {
  it("reports every begin and end as the bindings' own listener does, without calling JavaScript to pre- or post-solve", () => {
    const own: Calls = { events: [], solves: 0 };
    dropBalls(new box2d.JSContactListener(), own);
    const quiet: Calls = { events: [], solves: 0 };
    dropBalls(
      contactListener(
        () => {},
        () => {},
      ),
      quiet,
    );
    expect(quietSolveCallbacks).toBe(true);
    expect(own.solves).toBeGreaterThan(1000);
    expect(own.events.filter((e) => e.startsWith("end")).length).toBeGreaterThan(0);
    expect(quiet).toEqual({ events: own.events, solves: 0 });
  });
});
