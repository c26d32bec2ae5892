import { describe, expect, it } from "vitest";
import { call, errorOf, OBSERVATION_MAX_CHARS, resultOf, solvedSession } from "../../../test/support/tool-session.ts";

interface SnapshotResult {
  snapshot_id: string | null;
  fired: boolean;
  step: number;
  success: boolean;
  objects: Record<string, unknown>;
  touching: string[];
}

describe("snapshot", () => {
  it("at_step saves the world at that step, in the state simulate_partial reports there", () => {
    const { session, solution } = solvedSession("catapult");
    const out = call(session, "snapshot", { ...solution, at_step: 75 });
    const r = resultOf<SnapshotResult>(out);
    expect(r).toMatchObject({ snapshot_id: "snap_1", fired: true, step: 75, success: false });
    expect(session.snapshots.get("snap_1")?.step).toBe(75);
    const partial = resultOf<{ objects: Record<string, unknown>; touching: string[] }>(call(session, "simulate_partial", { ...solution, stop_step: 75 }));
    expect(r.objects).toStrictEqual(partial.objects);
    expect(r.touching).toEqual(partial.touching);
    expect(out.observation).toMatch(/^Snapshot snap_1 saved at step 75\. State there:/);
    expect(out.observation.length).toBeLessThan(OBSERVATION_MAX_CHARS);
  });

  it("at_step 0 is the world as placed, before the first step", () => {
    const { session, solution } = solvedSession("down_to_earth");
    const r = resultOf<SnapshotResult>(call(session, "snapshot", { ...solution, at_step: 0 }));
    expect(r.step).toBe(0);
    expect(r.touching).toEqual([]);
  });

  it("a contact trigger fires at the end of the step in which the pair first touches", () => {
    const { session, solution } = solvedSession("catapult");
    resultOf(call(session, "simulate_action", solution));
    const first = session.lastContacts!.events.find((e) => e.event === "begin" && (e.a === "red_ball" || e.b === "red_ball"))!;
    const other = first.a === "red_ball" ? first.b : first.a;
    const r = resultOf<SnapshotResult>(call(session, "snapshot", { ...solution, trigger: { kind: "contact", a: other, b: "red_ball" } }));
    expect(r.step).toBe(first.step);
    expect(r.touching).toContain(["red_ball", other].sort().join("|"));
    expect(session.lastContacts!.events.at(-1)!.step).toBeLessThanOrEqual(first.step);
  });

  it("a success trigger fires at the certified success step", () => {
    const { session, solution, successStep } = solvedSession("down_to_earth");
    const r = resultOf<SnapshotResult>(call(session, "snapshot", { ...solution, trigger: { kind: "success" } }));
    expect(r).toMatchObject({ fired: true, step: successStep, success: true });
  });

  it("reports a trigger that never fires within the horizon, without a snapshot", () => {
    const { session, solution } = solvedSession("down_to_earth", 0, 300);
    // Both are static: they can never start touching.
    const out = call(session, "snapshot", { ...solution, trigger: { kind: "contact", a: "platform", b: "purple_ground" } });
    expect(resultOf<SnapshotResult>(out)).toMatchObject({ snapshot_id: null, fired: false });
    expect(out.observation).toMatch(/did not happen within 300 steps/);
    expect(session.snapshots.size).toBe(0);
    expect(session.lastContacts?.events.length).toBeGreaterThan(0);
  });

  it("numbers snapshots in order within a session", () => {
    const { session, solution } = solvedSession("down_to_earth");
    const ids = [10, 20, 10].map((at_step) => resultOf<SnapshotResult>(call(session, "snapshot", { ...solution, at_step })).snapshot_id);
    expect(ids).toEqual(["snap_1", "snap_2", "snap_3"]);
  });

  it("needs exactly one of at_step and trigger, within the horizon, naming known objects", () => {
    const { session, solution } = solvedSession("down_to_earth", 0, 500);
    expect(errorOf(call(session, "snapshot", solution))).toMatch(/exactly one of at_step or trigger \(got neither\)/);
    expect(errorOf(call(session, "snapshot", { ...solution, at_step: 5, trigger: { kind: "success" } }))).toMatch(/\(got both\)/);
    expect(errorOf(call(session, "snapshot", { ...solution, at_step: 501 }))).toMatch(/at_step=501 must be in \[0, 500\]/);
    expect(errorOf(call(session, "snapshot", { ...solution, at_step: -1 }))).toMatch(/at_step=-1/);
    expect(errorOf(call(session, "snapshot", { ...solution, trigger: { kind: "contact", a: "red_ball", b: "floor" } }))).toMatch(
      /trigger\.b: unknown object 'floor'; known: .*purple_ground/,
    );
    expect(errorOf(call(session, "snapshot", { ...solution, trigger: { kind: "contact", a: "red_ball", b: "red_ball" } }))).toMatch(/two different/);
    expect(errorOf(call(session, "snapshot", { ...solution, trigger: { kind: "impact" } }))).toMatch(/trigger/);
    expect(session.snapshots.size).toBe(0);
  });

  it("is deterministic", () => {
    const { session, solution } = solvedSession("catapult");
    const args = { ...solution, trigger: { kind: "contact", a: "green_ball", b: "blue_ball" } };
    const first = call(session, "snapshot", args);
    expect(first.ok).toBe(true);
    expect(call(solvedSession("catapult").session, "snapshot", args)).toStrictEqual(first);
  });
});
