import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { trajectoryDigest } from "./support/trajectory-digest.ts";

const inChild = (args: string[]) => execFileSync(process.execPath, ["--import", "tsx", "test/support/trajectory-digest.ts", ...args], { encoding: "utf8" });

describe("determinism", () => {
  it.each([
    ["catapult", 4, 1.2, 0.5, 1.0],
    ["pass_the_parcel", 7, -0.4, 0.8, 0.7],
  ])("%s seed %i gives bit-identical trajectories in two separate processes", (level, seed, x, y, r) => {
    const args = [level, String(seed), String(x), String(y), String(r), "600"];
    const a = inChild(args);
    const b = inChild(args);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(b).toBe(a);
    expect(trajectoryDigest(level, seed, { x, y, radius: r }, 600)).toBe(a);
  });

  it("a different action gives a different trajectory (the digest sees the state)", () => {
    expect(trajectoryDigest("catapult", 4, { x: 1.2, y: 0.5, radius: 1.0 }, 200)).not.toBe(
      trajectoryDigest("catapult", 4, { x: 1.2, y: 0.5, radius: 1.0001 }, 200),
    );
  });
});
