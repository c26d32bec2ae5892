import { z } from "zod";
import { ModelOutputError } from "../../../src/errors.ts";
import { Simulation } from "../world/simulation.ts";
import { snapshotWhen, type Trigger } from "../world/snapshot.ts";
import { defineInterphyreTool } from "./interphyre-tool.ts";
import { knownObject, motionLines, objectNames, placeOrExplain, placementFields, roundState } from "./common.ts";

const TriggerInput = z.discriminatedUnion("kind", [
  z
    .object({
      kind: z.literal("contact"),
      a: z.string().describe("object name (walls: left_wall, right_wall, top_wall, bottom_wall)"),
      b: z.string().describe("the other object's name"),
    })
    .describe("the end of the first step in which a and b touch"),
  z.object({ kind: z.literal("success") }).describe("the step at which the goal pair has touched for 3 s"),
]);

export default defineInterphyreTool({
  name: "snapshot",
  description:
    "Place the red ball, simulate until a moment (a step, the first contact of two objects, or success) and " +
    "save the world there. Returns a snapshot_id for intervene, and the state at that moment.",
  input: z.object({
    ...placementFields,
    at_step: z.number().int().optional().describe("snapshot after this many steps (0 = before the first step); give this or trigger"),
    trigger: TriggerInput.optional().describe("snapshot when this happens; give this or at_step, not both"),
  }),
  run: (session, a) => {
    const action = placeOrExplain(session, a);
    if ((a.at_step === undefined) === (a.trigger === undefined)) {
      throw new ModelOutputError(
        `give exactly one of at_step or trigger (got ${a.at_step === undefined ? "neither" : "both"}); ` +
          `e.g. at_step: 60, or trigger: {"kind": "contact", "a": "red_ball", "b": "${session.instance.goal[0]}"}`,
      );
    }
    let trigger: Trigger;
    if (a.trigger === undefined) {
      const step = a.at_step!;
      if (step < 0 || step > session.horizon) {
        throw new ModelOutputError(`at_step=${step} must be in [0, ${session.horizon}] (the horizon); choose one in range`);
      }
      trigger = { kind: "step", step };
    } else if (a.trigger.kind === "contact") {
      const names = objectNames(session, true);
      trigger = { kind: "contact", a: knownObject(names, a.trigger.a, "trigger.a"), b: knownObject(names, a.trigger.b, "trigger.b") };
      if (trigger.a === trigger.b) throw new ModelOutputError(`trigger: a and b are both '${trigger.a}'; name two different objects`);
    } else trigger = { kind: "success" };
    const spec = { scene: session.instance.scene, goal: session.instance.goal, action };
    const taken = snapshotWhen(spec, trigger, { engine: session.engine, horizon: session.horizon });
    const moment = trigger.kind === "step" ? `step ${trigger.step}` : trigger.kind === "contact" ? `first contact ${trigger.a}–${trigger.b}` : "success";
    if (!taken.snapshot) {
      // snapshotWhen keeps no world when its trigger never fires; replay it for get_contact_log.
      const sim = new Simulation(spec, { engine: session.engine });
      while (sim.stepCount < taken.steps) sim.step();
      sim.close();
      session.lastContacts = { action, events: sim.contacts.log };
      return {
        result: { snapshot_id: null, fired: false, steps: taken.steps, action },
        observation: `No snapshot: ${moment} did not happen within ${taken.steps} steps (the horizon).`,
      };
    }
    taken.sim.close();
    session.lastContacts = { action, events: taken.sim.contacts.log };
    const s = taken.snapshot;
    const id = session.addSnapshot(s);
    const touching = [...s.contacts].sort();
    const result = {
      snapshot_id: id,
      fired: true,
      step: s.step,
      success: s.success,
      action,
      objects: Object.fromEntries(Object.entries(s.state).map(([name, o]) => [name, roundState(o)])),
      touching,
    };
    const observation = [
      `Snapshot ${id} saved at step ${s.step}${trigger.kind === "step" ? "" : ` (${moment})`}${s.success ? "; the goal has been held for 3 s here" : ""}. State there:`,
      ...motionLines(s.state),
      `Touching: ${
        touching.length
          ? touching
              .slice(0, 12)
              .map((p) => p.replace("|", "–"))
              .join(", ")
          : "nothing"
      }${touching.length > 12 ? ", …" : ""}.`,
      `Continue from it with intervene(snapshot_id: "${id}", ...).`,
    ].join("\n");
    return { result, observation };
  },
});
