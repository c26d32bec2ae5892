import { describe, expect, it } from "vitest";
import { createInstance } from "../instance.ts";
import { InterphyreSession } from "./interphyre-tool.ts";
import { call, errorOf, OBSERVATION_MAX_CHARS, resultOf, solvedSession } from "../../../test/support/tool-session.ts";

interface Prediction {
  contact: boolean;
  object: string;
  step: number;
  approach_speed: number;
  point: [number, number];
  normal: [number, number];
}

const firstRedBegin = (session: InterphyreSession) => {
  const e = session.lastContacts!.events.find((x) => x.event === "begin" && (x.a === "red_ball" || x.b === "red_ball"))!;
  return { object: e.a === "red_ball" ? e.b : e.a, step: e.step };
};

describe("predict_first_contact", () => {
  it.each([
    ["catapult", 0],
    ["catapult", 1],
    ["down_to_earth", 0],
    ["basket_case", 0],
    ["dive_bomb", 0],
    ["cliffhanger", 0],
  ] as const)("%s #%i: names the body and step of the full rollout's first red_ball contact", (level, index) => {
    const { session, solution } = solvedSession(level, index);
    resultOf(call(session, "simulate_action", solution));
    const expected = firstRedBegin(session);
    const out = call(session, "predict_first_contact", solution);
    const p = resultOf<Prediction>(out);
    expect(expected.step).toBeLessThanOrEqual(90); // within the window in these cases, or the comparison is moot
    expect({ object: p.object, step: p.step }).toEqual(expected);
    expect(Math.hypot(...p.normal)).toBeCloseTo(1, 2);
    expect(out.observation).toContain(`touches ${expected.object}`);
    expect(out.observation.length).toBeLessThan(OBSERVATION_MAX_CHARS);
  });

  it("uses the centre line as the normal for a ball falling onto a ball, with the speed of the fall", () => {
    const session = new InterphyreSession(createInstance("catapult", 4));
    const green = session.instance.scene.green_ball!;
    if (green.type !== "ball") throw new Error("catapult's green object is a ball");
    const drop = { x: green.x, y: green.y + green.radius + 1.2, radius: 0.2 };
    const p = resultOf<Prediction>(call(session, "predict_first_contact", drop));
    expect(p.object).toBe("green_ball");
    const before = resultOf<{ objects: Record<string, { x: number; y: number; vy: number }> }>(
      call(session, "simulate_partial", { ...drop, stop_step: p.step - 1 }),
    ).objects;
    const [red, ball] = [before.red_ball!, before.green_ball!];
    const d = Math.hypot(ball.x - red.x, ball.y - red.y);
    expect(p.normal[0]).toBeCloseTo((ball.x - red.x) / d, 2);
    expect(p.normal[1]).toBeCloseTo((ball.y - red.y) / d, 2);
    // Straight down onto a ball at rest: the approach speed is the fall speed, about √(2 g h) for the 1 m drop.
    expect(p.approach_speed).toBeCloseTo(-red.vy + ball.vy, 1);
    expect(p.approach_speed).toBeGreaterThan(3.5);
  });

  it("says so when nothing is touched within the window", () => {
    const session = new InterphyreSession(createInstance("down_to_earth", 0), 20);
    const out = call(session, "predict_first_contact", { x: -4, y: 4, radius: 0.3 });
    expect(resultOf<{ contact: boolean }>(out).contact).toBe(false);
    expect(out.observation).toMatch(/^No contact within 20 steps/);
    expect(session.lastContacts?.events).toEqual([]);
  });

  it("rejects invalid placements, and is deterministic", () => {
    const { session, solution } = solvedSession("catapult");
    expect(errorOf(call(session, "predict_first_contact", { ...solution, x: -9 }))).toMatch(/x=-9 is outside/);
    expect(errorOf(call(session, "predict_first_contact", { ...solution, radius: "big" }))).toMatch(/radius:/);
    const first = call(session, "predict_first_contact", solution);
    expect(call(solvedSession("catapult").session, "predict_first_contact", solution)).toStrictEqual(first);
  });
});
