import { describe, expect, it } from "vitest";
import { createInstance } from "../levels/interphyre/instance.ts";
import { readCertified } from "../levels/interphyre/certified-seeds.ts";
import { Simulation, type SimulationSpec } from "../levels/interphyre/world/simulation.ts";
import { captureSnapshot, restore, snapshotWhen } from "../levels/interphyre/world/snapshot.ts";
import { ENGINES, loadEngine } from "../levels/interphyre/world/engines.ts";
import { rollout } from "../levels/interphyre/world/rollout.ts";

const factories = new Map(await Promise.all(ENGINES.map(async (n) => [n, await loadEngine(n)] as const)));

/** Every number of every body and the contact clock, for exact comparison. */
const fingerprint = (sim: Simulation) => ({
  state: sim.state(),
  pairs: sim.contacts.pairs().sort(),
  time: sim.contacts.time,
  log: sim.contacts.log.length,
});

const run = (from: Simulation, until: number) => {
  const frames: ReturnType<typeof fingerprint>[] = [];
  while (from.stepCount < until) {
    from.step();
    frames.push(fingerprint(from));
  }
  return frames;
};

// One scene per shape family: balls only, bars, baskets.
const cases: [string, SimulationSpec][] = [
  ["balls (two_body_problem)", { ...createInstance("two_body_problem", 3), action: { x: -4.07, y: -1.03, radius: 0.47 } }],
  ["bars (cliffhanger)", { ...createInstance("cliffhanger", 2), action: { x: 0, y: 4, radius: 0.3 } }],
  ["baskets (catapult)", { ...createInstance("catapult", 0), action: { x: 1.3935, y: -1.2179, radius: 1.0916 } }],
];

// Every engine restores exactly: restore replays the recipe, which needs no engine internals.
describe.each(ENGINES)("%s engine", (name) => {
  const engine = factories.get(name)!;

  describe.each(cases)("snapshot/restore on %s", (_name, spec) => {
    it("continues bit-for-bit like the uninterrupted run at every later step", () => {
      const straight = new Simulation(spec, { engine });
      const before = run(straight, 150);
      const snap = captureSnapshot(straight);
      const after = run(straight, 600);
      const restored = restore(snap, { engine });
      expect(fingerprint(restored)).toStrictEqual(before.at(-1));
      expect(run(restored, 600)).toStrictEqual(after);
    });

    it("branches with an intervention without disturbing the original", () => {
      const taken = snapshotWhen(spec, { kind: "step", step: 120 }, { engine });
      if (!taken.snapshot) throw new Error("trigger did not fire");
      const plain = run(restore(taken.snapshot, { engine }), 400);
      const branch = restore(taken.snapshot, { engine });
      branch.apply({ kind: "impulse", object: "red_ball", ix: 0, iy: 5 });
      const pushed = run(branch, 400);
      expect(pushed.at(-1)).not.toStrictEqual(plain.at(-1));
      expect(run(restore(taken.snapshot, { engine }), 400)).toStrictEqual(plain);
      // A snapshot of the branch carries its intervention and replays it exactly.
      const again = restore(captureSnapshot(branch), { engine });
      expect(fingerprint(again)).toStrictEqual(pushed.at(-1));
    });
  });

  describe("snapshot triggers", () => {
    const spec = { ...createInstance("catapult", 0), action: { x: 1.3935, y: -1.2179, radius: 1.0916 } };

    it("fires on the first contact of a pair", () => {
      const taken = snapshotWhen(spec, { kind: "contact", a: "red_ball", b: "gray_platform" }, { engine });
      expect(taken.snapshot?.contacts).toContain("gray_platform|red_ball");
      expect(taken.snapshot!.step).toBeGreaterThan(0);
    });

    it("fires on success, and reports a trigger that never fires", () => {
      const certified = readCertified("two_body_problem")!.seeds[0]!;
      const [x, y, radius] = certified.solution;
      const solved = { ...createInstance("two_body_problem", certified.seed), action: { x, y, radius } };
      const taken = snapshotWhen(solved, { kind: "success" }, { engine });
      expect(taken.snapshot?.step).toBe(rollout(solved, { engine }).successStep);
      if (name === "planck") expect(taken.snapshot?.step).toBe(certified.successStep);
      expect(taken.snapshot?.success).toBe(true);
      const never = snapshotWhen(spec, { kind: "contact", a: "green_ball", b: "black_ball" }, { engine, horizon: 50 });
      expect(never).toEqual({ snapshot: undefined, steps: 50 });
    });

    it("supports freezing, moving and removing objects", () => {
      const taken = snapshotWhen(spec, { kind: "step", step: 30 }, { engine });
      const sim = restore(taken.snapshot!, { engine });
      sim.apply({ kind: "freeze", object: "gray_ball" });
      sim.apply({ kind: "set_position", object: "blue_ball", x: 0, y: 3 });
      sim.apply({ kind: "remove", object: "black_ball" });
      sim.apply({ kind: "add", object: "extra", spec: { x: -4, y: 4, radius: 0.3 } });
      const frozen = sim.object("gray_ball");
      run(sim, 90);
      expect(sim.object("gray_ball")).toMatchObject({ x: frozen.x, y: frozen.y, dynamic: false });
      expect(sim.engine.has("black_ball")).toBe(false);
      expect(sim.object("extra").y).toBeLessThan(4);
    });
  });
});
