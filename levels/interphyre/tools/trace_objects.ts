import { z } from "zod";
import { rollout } from "../world/rollout.ts";
import { Simulation, type LiveObject } from "../world/simulation.ts";
import { defineInterphyreTool } from "./interphyre-tool.ts";
import { cuttable, kept, sectioned } from "../../../src/family/observation.ts";
import { knownObject, n, objectNames, placeOrExplain, placementFields, round, stepsField } from "./common.ts";

/** Waypoints written into the observation, shared among the objects; the result keeps them all. */
const MAX_SHOWN = 48;

interface Extrema {
  peak: { y: number; step: number };
  lowest: { y: number; step: number };
  max_speed: { speed: number; step: number };
  angle_range_deg: [number, number];
}

const track = (e: Extrema | undefined, o: LiveObject, step: number): Extrema => {
  const speed = Math.hypot(o.vx, o.vy);
  if (!e) return { peak: { y: o.y, step }, lowest: { y: o.y, step }, max_speed: { speed, step }, angle_range_deg: [o.angle, o.angle] };
  if (o.y > e.peak.y) e.peak = { y: o.y, step };
  if (o.y < e.lowest.y) e.lowest = { y: o.y, step };
  if (speed > e.max_speed.speed) e.max_speed = { speed, step };
  e.angle_range_deg = [Math.min(e.angle_range_deg[0], o.angle), Math.max(e.angle_range_deg[1], o.angle)];
  return e;
};

export default defineInterphyreTool({
  name: "trace_objects",
  description:
    "Place the red ball, simulate (until success, rest or `steps`) and trace some objects: their position every " +
    "`every` steps, plus per object the peak and lowest height, the top speed and the range of angles reached.",
  input: z.object({
    ...placementFields,
    objects: z.array(z.string()).min(1).max(4).describe("names of 1 to 4 objects to trace (red_ball allowed)"),
    every: z.number().int().min(1).optional().describe("steps between waypoints (default 30; 60 steps = 1 s)"),
    steps: z.number().int().optional().describe("steps to simulate at most (default: the episode horizon)"),
  }),
  run: (session, a) => {
    const action = placeOrExplain(session, a);
    const names = [...new Set(a.objects.map((o) => knownObject(objectNames(session, false), o, "objects")))];
    const every = a.every ?? 30;
    const steps = stepsField(session, a.steps);
    const spec = { scene: session.instance.scene, goal: session.instance.goal, action };
    const waypoints = new Map(names.map((name) => [name, [] as { step: number; x: number; y: number }[]]));
    const extrema = new Map<string, Extrema>();
    const record = (sim: Simulation, sampled: boolean) => {
      for (const name of names) {
        const o = sim.object(name);
        extrema.set(name, track(extrema.get(name), o, sim.stepCount));
        if (sampled) waypoints.get(name)!.push({ step: sim.stepCount, x: round(o.x, 3), y: round(o.y, 3) });
      }
    };
    const start = new Simulation(spec, { engine: session.engine, recordContacts: false });
    record(start, true);
    start.close();
    const r = rollout(spec, { engine: session.engine, horizon: steps, stopWhenSettled: true, onStep: (sim) => record(sim, sim.stepCount % every === 0) });
    session.lastContacts = { action, events: r.sim.contacts.log };
    // The rollout returns on success before onStep sees that step.
    if (r.success || r.steps % every !== 0) record(r.sim, true);
    const traces = names.map((name) => {
      const e = extrema.get(name)!;
      return {
        object: name,
        waypoints: waypoints.get(name)!,
        peak: { y: round(e.peak.y, 3), step: e.peak.step },
        lowest: { y: round(e.lowest.y, 3), step: e.lowest.step },
        max_speed: { speed: round(e.max_speed.speed, 3), step: e.max_speed.step },
        angle_range_deg: e.angle_range_deg.map((v) => round(v, 1)),
      };
    });
    const end = r.success ? `SUCCESS at step ${r.steps}` : r.settledStep ? `everything at rest from step ${r.settledStep}` : `no success within ${steps} steps`;
    const perObject = Math.floor(MAX_SHOWN / traces.length);
    // Compaction keeps each object's summary; its waypoints are cut between waypoints, inside their own line.
    const sections = traces.flatMap((t) => {
      const shown = t.waypoints.slice(0, perObject).map((w) => `${w.step}: (${n(w.x)}, ${n(w.y)})`);
      const more = t.waypoints.length > perObject ? ` | … ${t.waypoints.length - perObject} more (raise every to see the whole run)` : "";
      return [
        kept(
          `${t.object}: peak y ${n(t.peak.y)} @${t.peak.step}, lowest y ${n(t.lowest.y)} @${t.lowest.step}, ` +
            `max speed ${n(t.max_speed.speed)} m/s @${t.max_speed.step}, angle ${n(t.angle_range_deg[0]!, 1)}°..${n(t.angle_range_deg[1]!, 1)}°`,
        ),
        cuttable(`  step: (x, y) ${shown.join(" | ")}${more}`, " | "),
      ];
    });
    return {
      result: { success: r.success, steps: r.steps, settled_step: r.settledStep ?? null, every, action, traces },
      ...sectioned([kept(`Trace, ${r.steps} steps simulated (${end}); waypoints every ${every} steps:`), ...sections]),
    };
  },
});
