import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/errors.ts";
import { cameraFor, cameraPose, loadScene } from "./frame-scene.ts";
import { sampledIndices } from "./frame-times.ts";

describe("which source frames become output frames", () => {
  it("takes the centre of each 1/fps interval, as Prompt-to-Policy does", () => {
    // 30 → 5 fps: intervals of 6, centres 2, 8, 14 (p2p's own example).
    expect(sampledIndices(18, 1 / 30, 5)).toEqual([2, 8, 14]);
    // Hopper: 1001 states at 125 per second, 10 fps → 80 frames, 12.5 source frames apart.
    const hopper = sampledIndices(1001, 0.008, 10);
    expect(hopper).toHaveLength(80);
    expect(hopper.slice(0, 3)).toEqual([5, 18, 30]);
    // A rate above the source's keeps every source frame in range.
    expect(sampledIndices(3, 0.04, 100)).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2]);
    // A count bound applies before anything is made: a huge rate costs nothing.
    expect(sampledIndices(1001, 0.008, 1e12, 3)).toEqual([0, 0, 0]);
  });

  it("refuses a rate, step or length that is not positive, naming it", () => {
    expect(() => sampledIndices(10, 0, 10)).toThrow(/dt must be a positive/);
    expect(() => sampledIndices(10, 0.01, Number.NaN)).toThrow(/fps must be positive/);
    expect(() => sampledIndices(0, 0.01, 10)).toThrow(ConfigError);
  });
});

describe("Gymnasium v5's default camera", () => {
  it("hopper: 3 m from a lookat 1.15 m high, 20° above, looking along +y", () => {
    const c = cameraFor("hopper.xml");
    expect(c).toMatchObject({ trackBody: 2, distance: 3, elevation: -20, azimuth: 90, lookatZ: 1.15 });
    const p = cameraPose(c, [4, 0.1, 0.9], c.lookatZ!);
    expect(p.target).toEqual([4, 0.1, 1.15]);
    expect(p.eye[0]).toBeCloseTo(4, 12);
    expect(p.eye[1]).toBeCloseTo(0.1 - 3 * Math.cos((20 * Math.PI) / 180), 12);
    expect(p.eye[2]).toBeCloseTo(1.15 + 3 * Math.sin((20 * Math.PI) / 180), 12);
  });

  it("uses MuJoCo's defaults where the config names nothing, and refuses an unknown model", () => {
    expect(cameraFor("half_cheetah.xml")).toMatchObject({ trackBody: 1, distance: 4, elevation: -45, lookatZ: null });
    expect(cameraFor("inverted_pendulum.xml")).toMatchObject({ trackBody: 0, distance: 2.04 });
    expect(() => cameraFor("swimmer.xml")).toThrow(/model swimmer.xml has no default camera/);
  });

  it("humanoid: humanoid_v5.py's config, 4 m from a lookat 2 m high, 20° above, following the torso", () => {
    expect(cameraFor("humanoid.xml")).toMatchObject({ trackBody: 1, distance: 4, elevation: -20, azimuth: 90, lookatZ: 2 });
  });
});

describe("the scene of a shipped model", () => {
  it("hopper: the floor plane and four tan capsules, each on its body, from the model's colours", async () => {
    const s = await loadScene("hopper.xml");
    expect(s.nbody).toBe(5);
    expect(s.geoms.map((g) => [g.type, g.body])).toEqual([
      [0, 0],
      [3, 1],
      [3, 2],
      [3, 3],
      [3, 4],
    ]);
    expect(s.geoms[1]!.rgba.map((c) => Math.round(c * 10) / 10)).toEqual([0.8, 0.6, 0.4, 1]);
    // The foot capsule lies along x: its local quat turns z by -90° about y.
    expect(s.geoms[4]!.quat[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(s.geoms[4]!.size.slice(0, 2)).toEqual([0.06, 0.195]);
  });

  it("ant: a sphere torso and twelve capsules; a name that is not a shipped model is refused", async () => {
    const s = await loadScene("ant.xml");
    expect(s.geoms.filter((g) => g.type === 2)).toHaveLength(1);
    expect(s.geoms.filter((g) => g.type === 3)).toHaveLength(12);
    await expect(loadScene("../../../../etc/passwd")).rejects.toThrow(/has no default camera/);
  });
});
