import { z } from "zod";
import { rollout } from "../world/rollout.ts";
import { defineInterphyreTool } from "./interphyre-tool.ts";
import { motionLines, objectSections, placeOrExplain, placementFields, roundState, stepsField } from "./common.ts";
import { cuttable, kept, sectioned } from "../../../src/family/observation.ts";

/** Touching pairs shown in the observation; the result keeps them all. */
const MAX_PAIRS = 12;

export default defineInterphyreTool({
  name: "simulate_partial",
  description:
    "Place the red ball and simulate until stop_step, or until success if that comes first. Returns the position, " +
    "velocity and angle of every object at that step and the pairs of objects touching then.",
  input: z.object({
    ...placementFields,
    stop_step: z.number().int().describe("step to stop at, from 1 to the episode horizon (60 steps = 1 s)"),
  }),
  run: (session, a) => {
    const action = placeOrExplain(session, a);
    const stop = stepsField(session, a.stop_step, "stop_step");
    const { scene, goal } = session.instance;
    const r = rollout({ scene, goal, action }, { engine: session.engine, horizon: stop, stopWhenSettled: true });
    session.lastContacts = { action, events: r.sim.contacts.log };
    // A settled world no longer moves, so its state now is its state at stop_step.
    const step = r.success ? r.steps : stop;
    const state = r.sim.state();
    const touching = r.sim.contacts.pairs().sort();
    const result = {
      success: r.success,
      step,
      settled_step: r.settledStep ?? null,
      action,
      objects: Object.fromEntries(Object.entries(state).map(([name, o]) => [name, roundState(o)])),
      touching,
    };
    const head = r.success
      ? `SUCCESS at step ${step} (before stop_step ${stop}): ${goal[0]} held contact with ${goal[1]} for 3 s. State then:`
      : `State at step ${step}${r.settledStep ? ` (everything at rest since step ${r.settledStep})` : ""}:`;
    const pairs = touching.slice(0, MAX_PAIRS).map((p) => p.replace("|", "–"));
    const more = touching.length > MAX_PAIRS ? `, … ${touching.length - MAX_PAIRS} more` : "";
    // Compaction keeps the outcome, the goal objects' states and what touches.
    return {
      result,
      ...sectioned([
        kept(head),
        ...objectSections(motionLines(state), goal),
        cuttable("Static objects keep their initial pose."),
        kept(`Touching now: ${pairs.length ? pairs.join(", ") + more : "nothing"}.`),
      ]),
    };
  },
});
