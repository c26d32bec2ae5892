import { z } from "zod";
import { rollout } from "../world/rollout.ts";
import { defineInterphyreTool } from "./interphyre-tool.ts";
import { n, placeOrExplain, placementFields } from "./common.ts";

export default defineInterphyreTool({
  name: "finish",
  description:
    "Commit a red-ball placement and end the episode. It is scored by the same full rollout as simulate_action, run " +
    "once to the episode horizon: commit a placement you have seen succeed, or else the best one you have seen (the " +
    "longest goal contact). An invalid placement is not committed: fix it and call finish again.",
  input: z.object(placementFields),
  run: (session, a) => {
    const action = placeOrExplain(session, a);
    const { scene, goal } = session.instance;
    const r = rollout({ scene, goal, action }, { engine: session.engine, horizon: session.horizon, stopWhenSettled: true });
    session.lastContacts = { action, events: r.sim.contacts.log };
    const step = r.success ? r.steps : session.horizon;
    const at = `(x=${n(action.x)}, y=${n(action.y)}, radius=${n(action.radius)})`;
    return {
      result: { committed: true, success: r.success, step, action },
      observation: r.success
        ? `Committed ${at}: SUCCESS at step ${step}.`
        : `Committed ${at}: FAILURE, the goal was not held for 3 s within ${session.horizon} steps.`,
    };
  },
});
