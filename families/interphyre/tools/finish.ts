import { z } from "zod";
import { rollout } from "../world/rollout.ts";
import { defineTool } from "./define-tool.ts";
import { n, placeOrExplain, placementFields } from "./common.ts";

export default defineTool({
  name: "finish",
  description:
    "Commit your final answer: the red-ball placement that is scored. It is validated and run once at the episode " +
    "horizon; the episode ends with this result. An invalid placement is not committed: fix it and call finish again.",
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
