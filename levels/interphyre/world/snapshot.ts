import { z } from "zod";
import { DEFAULT_HORIZON_STEPS } from "./constants.ts";
import type { Intervention } from "./intervention.ts";
import { Simulation, type LiveObject, type SimulationOptions, type SimulationSpec } from "./simulation.ts";

/**
 * A paused moment of a rollout. It stores the recipe (spec + the interventions made and when) rather than
 * engine internals: restoring replays the recipe in a fresh world, which gives a continuation bit-identical
 * to the uninterrupted run — planck keeps contact caches and proxy ids that no body-level copy restores, and
 * Interphyre's own restore, which rebuilds bodies, is not exact for that reason (docs/spec/interphyre.md §5.1).
 */
export interface Snapshot {
  spec: SimulationSpec;
  step: number;
  history: { step: number; intervention: Intervention }[];
  /** The state at the snapshot, for display; restore does not read it. */
  state: Record<string, LiveObject>;
  contacts: string[];
  success: boolean;
}

export const Trigger = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("step"), step: z.number().int().min(0) }),
  z.object({ kind: z.literal("contact"), a: z.string(), b: z.string() }),
  z.object({ kind: z.literal("success") }),
]);
export type Trigger = z.infer<typeof Trigger>;

export const captureSnapshot = (sim: Simulation): Snapshot => ({
  spec: sim.spec,
  step: sim.stepCount,
  history: sim.history.map((h) => ({ ...h })),
  state: sim.state(),
  contacts: sim.contacts.pairs(),
  success: sim.success,
});

const fired = (sim: Simulation, t: Trigger): boolean => {
  switch (t.kind) {
    case "step":
      return sim.stepCount >= t.step;
    case "contact":
      return sim.contacts.inContact(t.a, t.b);
    case "success":
      return sim.success;
  }
};

/** Runs from the start until the trigger fires (checked before the first step and after each), within the horizon. */
export const snapshotWhen = (
  spec: SimulationSpec,
  trigger: Trigger,
  options: SimulationOptions & { horizon?: number } = {},
): { snapshot: Snapshot; sim: Simulation } | { snapshot: undefined; steps: number } => {
  const horizon = options.horizon ?? DEFAULT_HORIZON_STEPS;
  const sim = new Simulation(spec, options);
  while (!fired(sim, trigger)) {
    if (sim.stepCount >= horizon) return { snapshot: undefined, steps: sim.stepCount };
    sim.step();
  }
  return { snapshot: captureSnapshot(sim), sim };
};

/** A fresh world at the snapshot's moment, ready to continue or to be changed. */
export const restore = (snapshot: Snapshot, options: SimulationOptions = {}): Simulation => {
  const sim = new Simulation(snapshot.spec, options);
  let next = 0;
  const applyDue = () => {
    while (next < snapshot.history.length && snapshot.history[next]!.step === sim.stepCount) {
      sim.apply(snapshot.history[next++]!.intervention);
    }
  };
  applyDue();
  while (sim.stepCount < snapshot.step) {
    sim.step();
    applyDue();
  }
  return sim;
};
