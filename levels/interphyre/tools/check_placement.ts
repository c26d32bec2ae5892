import { z } from "zod";
import { checkPlacement } from "../world/placement.ts";
import { defineInterphyreTool } from "./interphyre-tool.ts";
import { n, placementFields } from "./common.ts";

export default defineInterphyreTool({
  name: "check_placement",
  description:
    "Check whether a red-ball placement is valid (inside the bounds, touching no object) without simulating it. " +
    "Returns valid, or the reason and the distance by which it fails.",
  input: z.object(placementFields),
  run: (session, a) => {
    const p = checkPlacement(session.instance.scene, a, session.instance.bounds);
    const at = `(x=${n(p.action.x)}, y=${n(p.action.y)}, radius=${n(p.action.radius)})`;
    if (p.ok) {
      const clipped = p.action.radius !== a.radius ? ` (radius clipped from ${n(a.radius)})` : "";
      return { result: { valid: true, action: p.action }, observation: `VALID placement ${at}${clipped}.` };
    }
    return {
      result: { valid: false, field: p.field, reason: p.reason, distance: p.distance, action: p.action },
      observation: `INVALID placement ${at}: ${p.reason}.`,
    };
  },
});
