import { describe, expect, it } from "vitest";
import { ball, bar, basket } from "../objects.ts";
import { createInstance } from "../instance.ts";
import type { Scene } from "../world/scene.ts";
import type { Rgb } from "../../../src/report/gif.ts";
import { COLOURS, renderPicture, renderScene } from "./picture.ts";
import { svgToPng, svgToRaster, type Raster } from "../../../src/report/png.ts";

const SIZE = 200;

/** The pixel under world point (x, y): the world [−5, 5]² fills the image, y up. */
const at = (img: Raster, x: number, y: number): Rgb => {
  const px = Math.floor(((x + 5) / 10) * img.width);
  const py = Math.floor(((5 - y) / 10) * img.height);
  const i = (py * img.width + px) * 4;
  return [img.pixels[i]!, img.pixels[i + 1]!, img.pixels[i + 2]!];
};

const WHITE: Rgb = [255, 255, 255];
const draw = (scene: Scene, poses: Parameters<typeof renderPicture>[1] = scene, trail?: Parameters<typeof renderPicture>[2]["trail"]) =>
  svgToRaster(renderPicture(scene, poses, { size: SIZE, ...(trail ? { trail } : {}) }));

describe("renderPicture", () => {
  it("draws a level in Interphyre's colours, y up, filling the image", () => {
    const inst = createInstance("catapult", 1);
    const img = svgToRaster(renderScene(inst.scene, { size: SIZE }));
    expect([img.width, img.height, img.pixels.length]).toEqual([SIZE, SIZE, SIZE * SIZE * 4]);
    const s = inst.scene;
    // Dynamic balls carry a radius line from the centre along +x: sample just below it.
    expect(at(img, s.green_ball!.x, s.green_ball!.y - 0.1)).toEqual(COLOURS.green);
    expect(at(img, s.blue_ball!.x, s.blue_ball!.y - 0.2)).toEqual(COLOURS.blue);
    expect(at(img, s.gray_ball!.x, s.gray_ball!.y - 0.3)).toEqual(COLOURS.gray);
    expect(at(img, s.black_platform!.x + 1, s.black_platform!.y)).toEqual(COLOURS.black);
    // The static black ball hangs from the ceiling: near the top of the image, not the bottom.
    expect(s.black_ball!.y).toBeGreaterThan(4);
    expect(at(img, s.black_ball!.x, s.black_ball!.y)).toEqual(COLOURS.black);
    expect(at(img, s.black_ball!.x, -s.black_ball!.y)).toEqual(WHITE);
    expect(at(img, 0, 3)).toEqual(WHITE);
    // Walls are not drawn: the image border is background.
    expect(at(img, -4.99, 0)).toEqual(WHITE);
    expect(at(img, 0, -4.99)).toEqual(WHITE);
  });

  it("rotates bars counter-clockwise by their angle in degrees", () => {
    const img = draw({ pole: bar(0, 0, 4, 90, { color: "black", dynamic: false }), tilted: bar(-3, 3, 2, 45, { color: "purple", dynamic: false }) });
    expect(at(img, 0.02, 1.5)).toEqual(COLOURS.black);
    expect(at(img, 1.5, 0.02)).toEqual(WHITE);
    expect(at(img, -3 + 0.6, 3 + 0.6)).toEqual(COLOURS.purple);
    expect(at(img, -3 + 0.6, 3 - 0.6)).toEqual(WHITE);
  });

  it("turns a dynamic ball's radius line with the ball, and gives static balls none", () => {
    const g = ball(0, 0, 1, { color: "green" });
    const turned = draw({ g }, { g: { x: 0, y: 0, angle: 90 } });
    expect(at(turned, 0.5, 0.02)).toEqual(COLOURS.green);
    expect(at(turned, 0.02, 0.5)).not.toEqual(COLOURS.green);
    const still = draw({ s: ball(0, 0, 1, { color: "black", dynamic: false }) });
    expect(at(still, 0.5, 0.02)).toEqual(COLOURS.black);
  });

  it("draws a basket's floor and flared walls but not its sensor, turned about its anchor", () => {
    const upright = basket(0, -2, 1, { color: "gray" });
    const img = draw({ b: upright });
    const ft = upright.floor_thickness;
    expect(at(img, 0, -2 + ft / 2)).toEqual(COLOURS.gray);
    expect(at(img, -(upright.bottom_width + upright.wall_thickness) / 2 - 0.02, -2 + ft + 0.2)).toEqual(COLOURS.gray);
    expect(at(img, 0, -2 + ft + 0.3)).toEqual(WHITE); // inside the sensor box
    const flipped = draw({ b: { ...upright, angle: 180 } });
    expect(at(flipped, 0, -2 - ft / 2)).toEqual(COLOURS.gray);
    expect(at(flipped, 0, -2 + ft / 2 + 0.05)).toEqual(WHITE);
  });

  it("paints bodies in ascending order of y, whatever the key order", () => {
    const low = ball(0, 0, 1, { color: "red" });
    const high = ball(0, 0.5, 1, { color: "blue" });
    expect(at(draw({ high, low }), 0, 0.25)).toEqual(COLOURS.blue);
    expect(at(draw({ low, high }), 0, 0.25)).toEqual(COLOURS.blue);
    // Live poses decide the order, not the scene's: after `high` falls below `low`, `low` is on top.
    expect(at(draw({ low, high }, { low, high: { x: 0, y: -0.5, angle: 0 } }), 0, -0.25)).toEqual(COLOURS.red);
  });

  it("skips walls and names without a shape", () => {
    const g = ball(0, 0, 0.5, { color: "green" });
    const img = draw({ g }, { g, left_wall: { x: -4.995, y: 0, angle: 0 }, ghost: { x: 2, y: 2, angle: 0 } });
    expect(at(img, 0, -0.25)).toEqual(COLOURS.green);
    expect(at(img, 2, 2)).toEqual(WHITE);
  });

  it("shows a trail of earlier poses, fainter than the body, for dynamic bodies only", () => {
    const moving = ball(2, 0, 0.5, { color: "blue" });
    const fixed = ball(-2, -3, 0.5, { color: "black", dynamic: false });
    const img = draw({ moving, fixed }, { moving, fixed }, [{ moving: { x: -2, y: 2, angle: 0 }, fixed: { x: -2, y: 0, angle: 0 } }]);
    const ghost = at(img, -2, 2);
    expect(ghost).not.toEqual(WHITE);
    expect(ghost).not.toEqual(COLOURS.blue);
    ghost.forEach((c, i) => expect(c).toBeGreaterThan(COLOURS.blue![i]!));
    expect(at(img, -2, 0)).toEqual(WHITE);
    expect(at(img, 2, 0.2)).toEqual(COLOURS.blue);
  });
});

describe("svgToPng", () => {
  it("encodes a PNG of the picture's size", () => {
    const png = svgToPng(renderScene(createInstance("two_body_problem", 0).scene, { size: 120 }));
    expect([...png.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
    const view = new DataView(png.buffer, png.byteOffset);
    expect([view.getUint32(16), view.getUint32(20)]).toEqual([120, 120]);
  });
});
