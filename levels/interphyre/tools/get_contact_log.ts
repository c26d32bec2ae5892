import { z } from "zod";
import { ModelOutputError } from "../../../src/errors.ts";
import { defineInterphyreTool } from "./interphyre-tool.ts";
import { knownObject, n, objectNames } from "./common.ts";
import { cuttable, kept, sectioned } from "../../../src/family/observation.ts";

/** Events written into the observation: 40 short lines stay within a few hundred tokens. */
const MAX_SHOWN = 40;

export default defineInterphyreTool({
  name: "get_contact_log",
  description:
    "The begin/end contact events of the last simulation any tool ran in this episode, earliest first: step and " +
    "the pair of objects (walls are left_wall, right_wall, top_wall, bottom_wall). Optionally keep only events " +
    `involving some objects. The observation shows at most ${MAX_SHOWN} events.`,
  input: z.object({
    objects: z.array(z.string()).min(1).optional().describe("keep only events whose pair includes one of these names; default: every event"),
    limit: z.number().int().min(1).max(100).optional().describe("most events to return, earliest first (default 20, max 100)"),
  }),
  run: (session, a) => {
    const last = session.lastContacts;
    if (!last) {
      throw new ModelOutputError("no simulation has run yet in this episode; call simulate_action (or another simulating tool) first");
    }
    const known = [...new Set([...objectNames(session, true), ...last.events.flatMap((e) => [e.a, e.b])])];
    const names = a.objects?.map((o) => knownObject(known, o, "objects"));
    const limit = a.limit ?? 20;
    const matching = names ? last.events.filter((e) => names.includes(e.a) || names.includes(e.b)) : last.events;
    const events = matching.slice(0, limit).map((e) => ({ step: e.step, event: e.event, a: e.a, b: e.b }));
    const result = {
      action: last.action,
      total_events: last.events.length,
      matching_events: matching.length,
      events,
      truncated: matching.length > events.length,
    };
    const { x, y, radius } = last.action;
    const filter = names ? `, ${matching.length} involving ${names.join(" or ")}` : "";
    const shown = events.slice(0, MAX_SHOWN);
    // Compaction keeps the header and cuts the events at line ends.
    const eventLines = shown.map((e) => `step ${e.step} ${e.event} ${e.a}–${e.b}`);
    const header =
      `Contact log of the last simulation (red ball at (${n(x)}, ${n(y)}), radius ${n(radius)}): ${last.events.length} events${filter}; ` +
      `${shown.length ? `the first ${shown.length}:` : "none to show."}`;
    const later = matching.length > shown.length ? [kept(`… ${matching.length - shown.length} later events not shown; pass objects to narrow the log.`)] : [];
    return { result, ...sectioned([kept(header), ...(eventLines.length ? [cuttable(eventLines.join("\n"))] : []), ...later]) };
  },
});
