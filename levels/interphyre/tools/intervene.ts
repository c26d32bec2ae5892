import { z } from "zod";
import { ConfigError, ModelOutputError } from "../../../src/errors.ts";
import { WALL_NAMES } from "../world/constants.ts";
import { Intervention } from "../world/intervention.ts";
import type { Simulation } from "../world/simulation.ts";
import { restore } from "../world/snapshot.ts";
import { defineInterphyreTool } from "./interphyre-tool.ts";
import { n, pos, round, roundState } from "./common.ts";

/** Applies the interventions in order; a bad one names its index and what to change (nothing reaches the engine unchecked). */
const applyChecked = (sim: Simulation, interventions: Intervention[]) =>
  interventions.forEach((iv, i) => {
    const where = `interventions[${i}]`;
    const taken = sim.engine.has(iv.object) || (WALL_NAMES as readonly string[]).includes(iv.object);
    if (iv.kind === "add" && taken) throw new ModelOutputError(`${where}.object: '${iv.object}' already exists; choose a new name`);
    if (iv.kind !== "add" && !sim.engine.has(iv.object)) {
      throw new ModelOutputError(`${where}.object: unknown object '${iv.object}'; known: ${sim.engine.names().join(", ")}`);
    }
    try {
      sim.apply(iv);
    } catch (e) {
      if (e instanceof ConfigError) throw new ModelOutputError(`${where}: ${e.message}`);
      throw e;
    }
  });

/** Steps on to `end`, stopping at success, or once nothing moves and the goal pair is apart (as rollout does). */
const continueTo = (sim: Simulation, end: number) => {
  const [a, b] = sim.spec.goal;
  let settledStep: number | null = null;
  while (sim.stepCount < end) {
    sim.step();
    if (sim.success) break;
    if (!sim.contacts.inContact(a, b) && sim.settled) {
      settledStep = sim.stepCount;
      break;
    }
  }
  const state = sim.state();
  sim.close();
  const final = Object.fromEntries(Object.entries(state).map(([name, o]) => [name, roundState(o)]));
  return { success: sim.success, step: sim.stepCount, settled_step: settledStep, final, state };
};
type Branch = ReturnType<typeof continueTo>;

const outcome = (b: Branch) =>
  b.success
    ? `SUCCESS at step ${b.step}`
    : b.settled_step
      ? `FAILURE, everything at rest from step ${b.settled_step}`
      : `FAILURE, no success by step ${b.step}`;

const apart = (name: string, x: Branch, y: Branch) => {
  const [p, q] = [x.state[name], y.state[name]];
  return { object: name, distance: p && q ? round(Math.hypot(p.x - q.x, p.y - q.y), 3) : null };
};

export default defineInterphyreTool({
  name: "intervene",
  description:
    "Continue a saved snapshot twice for the same number of steps: once after applying the interventions (push, set " +
    "velocity, move, freeze, remove or add objects) and once unchanged. Returns both outcomes and how the final " +
    "positions differ: a counterfactual pair. get_contact_log then shows the intervened branch.",
  input: z.object({
    snapshot_id: z.string().describe("id returned by the snapshot tool, e.g. snap_1"),
    interventions: z.array(Intervention).max(10).describe("changes applied in order at the snapshot's moment; [] compares the plain run with itself"),
    steps: z.number().int().min(1).describe("steps to continue after the snapshot; stops earlier at success"),
  }),
  run: (session, a) => {
    const snap = session.snapshots.get(a.snapshot_id);
    if (!snap) {
      const known = [...session.snapshots.keys()];
      throw new ModelOutputError(
        `snapshot_id: unknown snapshot '${a.snapshot_id}'; ${known.length ? `known: ${known.join(", ")}` : "take one with the snapshot tool first"}`,
      );
    }
    const room = session.horizon - snap.step;
    if (a.steps > room) {
      throw new ModelOutputError(`steps=${a.steps} runs past the horizon ${session.horizon} (the snapshot is at step ${snap.step}); choose steps ≤ ${room}`);
    }
    const changedSim = restore(snap, { engine: session.engine });
    applyChecked(changedSim, a.interventions);
    const changed = continueTo(changedSim, snap.step + a.steps);
    const plain = continueTo(restore(snap, { engine: session.engine }), snap.step + a.steps);
    session.lastContacts = { action: snap.spec.action!, events: changedSim.contacts.log };
    const goal = snap.spec.goal.map((name) => apart(name, changed, plain));
    const others = [...new Set([...Object.keys(changed.state), ...Object.keys(plain.state)])]
      .filter((name) => !snap.spec.goal.includes(name))
      .map((name) => apart(name, changed, plain))
      .filter((d) => d.distance === null || d.distance > 0.01)
      .sort((p, q) => (q.distance ?? Infinity) - (p.distance ?? Infinity))
      .slice(0, 3);
    const strip = ({ state: _, ...rest }: Branch) => rest;
    const result = {
      snapshot_id: a.snapshot_id,
      from_step: snap.step,
      interventions: a.interventions,
      intervened: strip(changed),
      plain: strip(plain),
      comparison: { same_outcome: changed.success === plain.success && changed.step === plain.step, goal, most_different: others },
    };
    const at = (b: Branch, name: string) => (b.state[name] ? pos(b.state[name]!) : "(gone)");
    const diff = (d: { object: string; distance: number | null }) =>
      `${d.object} ${at(changed, d.object)} vs ${at(plain, d.object)}${d.distance === null ? "" : `, ${n(d.distance)} m apart`}`;
    const what = a.interventions.length ? a.interventions.map((iv) => `${iv.kind} ${iv.object}`).join(", ") : "no interventions";
    const observation = [
      `From ${a.snapshot_id} (step ${snap.step}), up to ${a.steps} more steps, with ${what}:`,
      `- intervened: ${outcome(changed)}`,
      `- unchanged: ${outcome(plain)}`,
      `Goal objects at the end (intervened vs unchanged): ${goal.map(diff).join("; ")}.`,
      others.length ? `Other objects that differ most: ${others.map(diff).join("; ")}.` : "No other object ends more than 0.01 m from where it ends unchanged.",
    ].join("\n");
    return { result, observation };
  },
});
