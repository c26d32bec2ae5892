import { describe, expect, it } from "vitest";
import { basket, bar, ball } from "../objects.ts";
import { checkPlacement } from "./placement.ts";
import type { Scene } from "./scene.ts";

const scene: Scene = {
  green_ball: ball(0, 0, 0.5),
  platform: bar(2, -2, 2, 0, { dynamic: false }),
};

describe("checkPlacement", () => {
  it("accepts a free placement and clips the radius into [0.1, 1.5]", () => {
    expect(checkPlacement(scene, { x: -3, y: 3, radius: 9 })).toEqual({ ok: true, action: { x: -3, y: 3, radius: 1.5 } });
    expect(checkPlacement(scene, { x: -3, y: 3, radius: 0.01 })).toEqual({ ok: true, action: { x: -3, y: 3, radius: 0.1 } });
  });

  it("treats touching as overlap, with the distance by which it fails", () => {
    const touching = checkPlacement(scene, { x: 1, y: 0, radius: 0.5 });
    expect(touching).toMatchObject({ ok: false, field: "green_ball", distance: 0 });
    const overlapping = checkPlacement(scene, { x: 0.8, y: 0, radius: 0.5 });
    expect(overlapping).toMatchObject({ ok: false, field: "green_ball", distance: 0.2 });
    expect(checkPlacement(scene, { x: 1.0001, y: 0, radius: 0.5 }).ok).toBe(true);
  });

  it("tests bars as rotated rectangles", () => {
    expect(checkPlacement(scene, { x: 2.9, y: -1.75, radius: 0.2 })).toMatchObject({ ok: false, field: "platform" });
    const tilted: Scene = { ramp: bar(0, 0, 4, 45, { dynamic: false }) };
    expect(checkPlacement(tilted, { x: 1.5, y: -1.5, radius: 0.3 }).ok).toBe(true);
    expect(checkPlacement(tilted, { x: 1.4, y: 1.4, radius: 0.3 })).toMatchObject({ ok: false, field: "ramp" });
  });

  it("keeps the ball inside the world, inclusive at the limit", () => {
    expect(checkPlacement({}, { x: 4.5, y: 0, radius: 0.5 }).ok).toBe(true);
    expect(checkPlacement({}, { x: 4.6, y: 0, radius: 0.5 })).toMatchObject({ ok: false, field: "x", distance: 0.1 });
    expect(checkPlacement({}, { x: 0, y: -4.8, radius: 0.5 })).toMatchObject({ ok: false, field: "y", distance: 0.3 });
  });

  it("applies a level's own bounds (flagpole_sitta)", () => {
    const bounds = { x: [-4, 4], y: [-4, 3.5], radius: [0.2, 1.25] } as const;
    expect(checkPlacement({}, { x: 4.2, y: 0, radius: 0.5 }, bounds)).toMatchObject({ ok: false, field: "x" });
    expect(checkPlacement({}, { x: 0, y: 0, radius: 2 }, bounds)).toEqual({ ok: true, action: { x: 0, y: 0, radius: 1.25 } });
  });

  it("names a non-finite coordinate", () => {
    expect(checkPlacement(scene, { x: Number.NaN, y: 0, radius: 0.5 })).toMatchObject({ ok: false, field: "x" });
  });

  it("tests an inverted basket against its real shape, not an axis-aligned box", () => {
    // pass_the_parcel's cup: rotated 180° about its top-centre anchor, so it hangs below (x, y).
    const cup = basket(0, 0, 0.6, { angle: 180, anchor: "top_center", wallThickness: 0.15 });
    const s: Scene = { top_basket: cup };
    // Its closed end is at y ≈ +1.2..1.35 above the anchor; Interphyre's AABB check would put it below.
    expect(checkPlacement(s, { x: 0, y: 1.3, radius: 0.1 })).toMatchObject({ ok: false, field: "top_basket" });
    // Below the anchor is the open mouth region the AABB check wrongly blocks; far below is free.
    expect(checkPlacement(s, { x: 0, y: -1, radius: 0.2 }).ok).toBe(true);
    // A small ball wholly inside the cup is accepted, as in Interphyre.
    expect(checkPlacement(s, { x: 0, y: 0.7, radius: 0.1 }).ok).toBe(true);
  });

  it("tests a tilted basket's flared wall where it really is", () => {
    const tilted = basket(0, 0, 1, { angle: -30 });
    const s: Scene = { basket: tilted };
    // Upper-left wall tip of an upright basket (≈ −0.75, 2.1) rotated by −30° moves right and down.
    const a = (-30 * Math.PI) / 180;
    const [lx, ly] = [-0.677 - 0.0875, 2.1];
    const tip = { x: lx * Math.cos(a) - ly * Math.sin(a), y: lx * Math.sin(a) + ly * Math.cos(a) };
    expect(checkPlacement(s, { ...tip, radius: 0.1 })).toMatchObject({ ok: false, field: "basket" });
    expect(checkPlacement(s, { x: lx, y: ly, radius: 0.1 }).ok).toBe(true);
  });
});
