import { z } from "zod";
import { ACTION_OBJECT } from "../world/constants.ts";
import { rollout } from "../world/rollout.ts";
import { defineInterphyreTool } from "./interphyre-tool.ts";
import { clipNote, motion, n, objectSections, placeOrExplain, placementFields, roundState, stepsField } from "./common.ts";
import { kept, sectioned } from "../../../src/family/observation.ts";
import { firstContactsOf } from "./contact-summary.ts";

export default defineInterphyreTool({
  name: "simulate_action",
  description:
    "Place the red ball and run the full rollout until success or the horizon. Returns SUCCESS or FAILURE, the " +
    "step reached, the final position and velocity of every dynamic object, and the red ball's first contacts.",
  input: z.object({
    ...placementFields,
    steps: z.number().int().optional().describe("horizon to use (default: the episode horizon)"),
  }),
  run: (session, a) => {
    const action = placeOrExplain(session, a);
    const steps = stepsField(session, a.steps);
    const { scene, goal } = session.instance;
    let longestHold = 0;
    const r = rollout(
      { scene, goal, action },
      {
        engine: session.engine,
        horizon: steps,
        stopWhenSettled: true,
        onStep: (sim) => void (longestHold = Math.max(longestHold, sim.contacts.duration(goal[0], goal[1]))),
      },
    );
    session.lastContacts = { action, events: r.sim.contacts.log };
    // A settled world no longer moves, so its state now is its state at the horizon.
    const stepReached = r.success ? r.steps : steps;
    const state = r.sim.state();
    const dynamic = Object.entries(state).filter(([, o]) => o.dynamic);
    const firstContacts = firstContactsOf(r.sim.contacts.log, ACTION_OBJECT, 5);
    const result = {
      success: r.success,
      step: stepReached,
      settled_step: r.settledStep ?? null,
      longest_goal_contact_s: Math.round(longestHold * 100) / 100,
      action,
      final: Object.fromEntries(dynamic.map(([name, o]) => [name, roundState(o)])),
      red_ball_first_contacts: firstContacts,
    };
    const head = r.success
      ? `SUCCESS at step ${stepReached}: ${goal[0]} held contact with ${goal[1]} for 3 s.`
      : `FAILURE after ${stepReached} steps${r.settledStep ? ` (everything at rest from step ${r.settledStep})` : ""}. ` +
        (longestHold > 0 ? `Longest ${goal[0]}–${goal[1]} contact: ${n(longestHold)} s of 3.` : `${goal[0]} never touched ${goal[1]}.`);
    const contacts = firstContacts.length
      ? `red_ball first contacts: ${firstContacts.map((c) => `${c.object} @${c.step}`).join(", ")}`
      : "red_ball touched nothing.";
    // Compaction keeps the outcome, the red ball's first contacts and the goal objects' final states.
    return {
      result,
      ...sectioned([
        kept(head),
        ...[clipNote(a, action)].filter(Boolean).map(kept),
        kept(contacts),
        kept("Dynamic objects at the end:"),
        ...objectSections(
          dynamic.map(([name, o]) => `- ${name} ${motion(o)}`),
          goal,
        ),
      ]),
    };
  },
});
