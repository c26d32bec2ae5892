import { DEFAULT_HORIZON_STEPS } from "./constants.ts";
import { Simulation, type SimulationOptions, type SimulationSpec } from "./simulation.ts";

export interface RolloutOptions extends SimulationOptions {
  /** Steps before the rollout times out (Interphyre 1000; the HExA harness 2000). */
  horizon?: number;
  /**
   * Stop as soon as every dynamic body sleeps. Nothing can wake them, so the outcome is already decided:
   * a failure stays a failure, and a touching goal pair keeps counting. Saves most of the time of a
   * failed rollout without changing any outcome.
   */
  stopWhenSettled?: boolean;
  /** Called after every step; return true to stop there. */
  onStep?: (sim: Simulation) => boolean | void;
}

export interface RolloutResult {
  success: boolean;
  /** Steps simulated. */
  steps: number;
  /** Step at which the goal was held for 3 s, when it was. */
  successStep: number | undefined;
  /** Step at which everything came to rest, if the rollout stopped there. */
  settledStep: number | undefined;
  /** The finished world, closed: its final state and contacts can be read, not stepped. */
  sim: Simulation;
}

/** Interphyre's episode loop (docs/spec/interphyre.md §1.5): step, advance the clock, test success, stop on success. */
export const rollout = (spec: SimulationSpec, options: RolloutOptions = {}): RolloutResult => {
  const sim = new Simulation(spec, options);
  const result = run(sim, options);
  // The result's world is only read from here on: free it now (a wasm engine's heap is not garbage-collected).
  sim.close();
  return result;
};

const run = (sim: Simulation, options: RolloutOptions): RolloutResult => {
  const horizon = options.horizon ?? DEFAULT_HORIZON_STEPS;
  const [a, b] = sim.spec.goal;
  while (sim.stepCount < horizon) {
    sim.step();
    if (sim.success) return { success: true, steps: sim.stepCount, successStep: sim.stepCount, settledStep: undefined, sim };
    if (options.onStep?.(sim)) break;
    if (options.stopWhenSettled && !sim.contacts.inContact(a, b) && sim.settled) {
      return { success: false, steps: sim.stepCount, successStep: undefined, settledStep: sim.stepCount, sim };
    }
  }
  return { success: false, steps: sim.stepCount, successStep: undefined, settledStep: undefined, sim };
};
