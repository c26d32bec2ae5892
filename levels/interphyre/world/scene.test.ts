import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/errors.ts";
import { parseScene } from "./scene.ts";

const err = (raw: unknown) => {
  try {
    parseScene(raw);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error("expected a ConfigError");
};

describe("parseScene", () => {
  it("infers kinds from Interphyre's attributes and fills material defaults", () => {
    const s = parseScene({
      b: { x: 0, y: 1, radius: 0.5 },
      p: { x: 0, y: -2, length: 3, angle: 10 },
      k: { x: 1, y: -4, scale: 1 },
    });
    expect(s.b!.type).toBe("ball");
    expect(s.p).toMatchObject({ type: "bar", thickness: 0.2, density: 0.25, friction: 0.5, angular_damping: 0.01 });
    expect(s.k).toMatchObject({ type: "basket", bottom_width: 1.083, height: 2, wall_thickness: 0.175, anchor: "bottom_center" });
  });

  it("names the missing field", () => {
    expect(err({ green_ball: { x: 0, radius: 0.5 } })).toBe("scene.green_ball.y: is required (missing)");
  });

  it("names a negative size with its value", () => {
    expect(err({ green_ball: { x: 0, y: 0, radius: -1 } })).toBe("scene.green_ball.radius: must be > 0 (got -1)");
  });

  it("rejects an unknown object type and says which are known", () => {
    expect(err({ jar: { type: "jar", x: 0, y: 0 } })).toMatch(/^scene\.jar\.type: unknown object type "jar"; use "ball", "bar" or "basket"/);
  });

  it("rejects an object whose kind cannot be told", () => {
    expect(err({ thing: { x: 0, y: 0 } })).toMatch(/^scene\.thing: cannot tell the object type/);
  });

  it("rejects NaN coordinates by name", () => {
    expect(err({ b: { x: Number.NaN, y: 0, radius: 1 } })).toMatch(/^scene\.b\.x: /);
  });
});
