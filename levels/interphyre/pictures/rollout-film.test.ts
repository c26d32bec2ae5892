import { describe, expect, it } from "vitest";
import { decodeGif } from "../../../test/support/gif-decode.ts";
import { ball, bar } from "../objects.ts";
import { filmRollout, filmToGif } from "./rollout-film.ts";

describe("filmRollout and filmToGif", () => {
  // A ball dropped onto a static bar: it moves, so every frame differs, and nothing can succeed.
  const spec = {
    scene: { green_ball: ball(0, 2, 0.5, { color: "green" }), floor: bar(0, -1, 6, 0, { color: "black", dynamic: false }) },
    goal: ["green_ball", "blue_ball"] as const,
    action: { x: -3, y: 3, radius: 0.4 },
  };

  it("films step 0, every stepsPerFrame steps and the last step", () => {
    const film = filmRollout(spec, { horizon: 20, stepsPerFrame: 6 });
    expect(film.result.steps).toBe(20);
    expect(film.frames.map((f) => f.step)).toEqual([0, 6, 12, 18, 20]);
    expect(film.frames[0]!.poses.red_ball).toMatchObject({ x: -3, y: 3 });
    expect(film.frames[4]!.poses.green_ball!.y).toBeLessThan(2);
    expect(Object.keys(film.shapes).sort()).toEqual(["floor", "green_ball", "red_ball"]);
  });

  it("makes one GIF frame per filmed pose, in real time, holding the last", () => {
    const film = filmRollout(spec, { horizon: 20, stepsPerFrame: 6 });
    const seen: number[] = [];
    const gif = filmToGif(film, { size: 40, trail: true, holdLastMs: 1000, onFrame: (done) => seen.push(done) });
    expect(gif.frames).toBe(5);
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    const decoded = decodeGif(gif.bytes);
    expect(decoded.frames).toHaveLength(5);
    // Steps 0→6→12→18→20 at 1/60 s: 10, 10, 10 and 3 hundredths (running time rounded), then the hold.
    expect(decoded.frames.map((f) => f.delayCs)).toEqual([10, 10, 10, 3, 100]);
  });
});
