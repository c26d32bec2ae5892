import { describe, expect, it } from "vitest";
import { cameraFor } from "../pictures/frame-scene.ts";
import { sceneNote } from "./judge-scene.ts";

const bodies = ["world", "torso", "thigh"].map((name) => ({ name })) as Parameters<typeof sceneNote>[0]["bodies"];

describe("the scene note hexa judge sends the vision judge", () => {
  it("says where the task's forward runs in the picture and what the camera follows", () => {
    expect(sceneNote({ forward: [1, 0, 0], bodies }, cameraFor("hopper.xml"))).toBe(
      "The task's forward direction runs to the right of the picture; up in the world is up in the picture. " +
        "The camera follows the thigh body, so travel shows as the checkered floor moving past.",
    );
    expect(sceneNote({ forward: [0, 1, 0], bodies }, cameraFor("ant.xml"))).toMatch(
      /^The task's forward direction runs away from the viewer, into the picture;.* follows the torso body/,
    );
    expect(sceneNote({ forward: [-1, 0, 0], bodies }, cameraFor("inverted_pendulum.xml"))).toMatch(/runs to the left of the picture;.* The camera is fixed\.$/);
  });
});
