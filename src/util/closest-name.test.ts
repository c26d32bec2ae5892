import { describe, expect, it } from "vitest";
import { closestName } from "./closest-name.ts";

describe("closestName", () => {
  it("finds the flag, command or key a typo meant", () => {
    expect(closestName("runsdir", ["runs-dir", "resume", "backend"])).toBe("runs-dir");
    expect(closestName("rn", ["levels", "run", "eval", "verify"])).toBe("run");
    expect(closestName("episodesPerRund", ["episodesPerRound", "rounds", "offline"])).toBe("episodesPerRound");
  });

  it("suggests nothing when no name is close", () => {
    expect(closestName("rounds", ["runs-dir", "resume", "backend", "doctor"])).toBeUndefined();
    expect(closestName("x", [])).toBeUndefined();
  });
});
