import { describe, expect, it } from "vitest";
import { call, errorOf, OBSERVATION_MAX_CHARS, resultOf, solvedSession } from "../../../test/support/tool-session.ts";

interface Branch {
  success: boolean;
  step: number;
  settled_step: number | null;
  final: Record<string, { x: number; y: number }>;
}
interface InterveneResult {
  from_step: number;
  intervened: Branch;
  plain: Branch;
  comparison: {
    same_outcome: boolean;
    goal: { object: string; distance: number | null }[];
    most_different: { object: string; distance: number | null }[];
  };
}

const snapAt = (level: string, step: number, horizon?: number) => {
  const s = solvedSession(level, 0, horizon);
  const id = resultOf<{ snapshot_id: string }>(call(s.session, "snapshot", { ...s.solution, at_step: step })).snapshot_id;
  return { ...s, id };
};

describe("intervene", () => {
  it("its unchanged branch is the plain continuation: the same as simulating from scratch", () => {
    const { session, solution, successStep, id } = snapAt("catapult", 60);
    const steps = successStep - 60 - 100;
    const r = resultOf<InterveneResult>(
      call(session, "intervene", { snapshot_id: id, interventions: [{ kind: "impulse", object: "red_ball", ix: 0, iy: 4 }], steps }),
    );
    const partial = resultOf<{ success: boolean; step: number; objects: Record<string, unknown> }>(
      call(session, "simulate_partial", { ...solution, stop_step: 60 + steps }),
    );
    expect(r.plain).toMatchObject({ success: partial.success, step: partial.step });
    expect(r.plain.final).toStrictEqual(partial.objects);
  });

  it("its unchanged branch reaches the certified success, like simulate_action", () => {
    const { session, solution, successStep, id } = snapAt("down_to_earth", 100);
    const r = resultOf<InterveneResult>(call(session, "intervene", { snapshot_id: id, interventions: [], steps: session.horizon - 100 }));
    const full = resultOf<{ success: boolean; step: number; final: Record<string, unknown> }>(call(session, "simulate_action", solution));
    expect(r.plain).toMatchObject({ success: true, step: successStep });
    expect(full).toMatchObject({ success: true, step: successStep });
    for (const [name, o] of Object.entries(full.final)) expect(r.plain.final[name]).toStrictEqual(o);
  });

  it("with no interventions both branches are identical", () => {
    const { session, id } = snapAt("catapult", 30);
    const r = resultOf<InterveneResult>(call(session, "intervene", { snapshot_id: id, interventions: [], steps: 200 }));
    expect(r.intervened).toStrictEqual(r.plain);
    expect(r.comparison).toMatchObject({ same_outcome: true, most_different: [] });
    expect(r.comparison.goal.every((g) => g.distance === 0)).toBe(true);
  });

  it("removing the goal object prevents the success the plain run reaches", () => {
    const { session, successStep, id } = snapAt("down_to_earth", 50);
    const out = call(session, "intervene", { snapshot_id: id, interventions: [{ kind: "remove", object: "green_ball" }], steps: successStep });
    const r = resultOf<InterveneResult>(out);
    expect(r.plain).toMatchObject({ success: true, step: successStep });
    expect(r.intervened.success).toBe(false);
    expect(r.intervened.final.green_ball).toBeUndefined();
    expect(r.comparison.goal.find((g) => g.object === "green_ball")!.distance).toBeNull();
    expect(out.observation).toMatch(/green_ball \(gone\) vs/);
    expect(out.observation.length).toBeLessThan(OBSERVATION_MAX_CHARS);
  });

  it("a push changes where things end, and get_contact_log then shows the pushed branch", () => {
    const { session, solution, id } = snapAt("catapult", 30);
    const push = { kind: "set_velocity", object: "red_ball", vx: -6, vy: 2 };
    const r = resultOf<InterveneResult>(call(session, "intervene", { snapshot_id: id, interventions: [push], steps: 240 }));
    expect(r.comparison.most_different.map((d) => d.object)).toContain("red_ball");
    expect(r.intervened.final.red_ball).not.toEqual(r.plain.final.red_ball);
    expect(session.lastContacts?.action).toEqual(solution);
    const plainLog = (() => {
      const s = solvedSession("catapult");
      resultOf(call(s.session, "simulate_partial", { ...solution, stop_step: 270 }));
      return s.session.lastContacts!.events;
    })();
    expect(session.lastContacts!.events).not.toEqual(plainLog);
    expect(session.lastContacts!.events.filter((e) => e.step <= 30)).toEqual(plainLog.filter((e) => e.step <= 30));
  });

  it("rejects unknown snapshots, unknown objects, bad additions and runs past the horizon", () => {
    const { session, id } = snapAt("down_to_earth", 100, 400);
    const go = (args: object) => errorOf(call(session, "intervene", { snapshot_id: id, interventions: [], steps: 10, ...args }));
    expect(go({ snapshot_id: "snap_9" })).toMatch(/unknown snapshot 'snap_9'; known: snap_1/);
    expect(go({ steps: 301 })).toMatch(/steps=301 runs past the horizon 400 .*choose steps ≤ 300/);
    expect(go({ interventions: [{ kind: "freeze", object: "gray_ball" }] })).toMatch(
      /interventions\[0\]\.object: unknown object 'gray_ball'; known: .*green_ball/,
    );
    expect(
      go({
        interventions: [
          { kind: "remove", object: "green_ball" },
          { kind: "freeze", object: "green_ball" },
        ],
      }),
    ).toMatch(/interventions\[1\]/);
    expect(go({ interventions: [{ kind: "add", object: "red_ball", spec: { x: 0, y: 3, radius: 0.2 } }] })).toMatch(/'red_ball' already exists/);
    expect(go({ interventions: [{ kind: "add", object: "extra", spec: { x: 0, y: 3, radius: -1 } }] })).toMatch(/interventions\[0\]: .*radius/);
    expect(go({ interventions: [{ kind: "impulse", object: "green_ball", ix: Number.NaN, iy: 0 }] })).toMatch(/ix/);
    expect(errorOf(call(solvedSession("down_to_earth").session, "intervene", { snapshot_id: "snap_1", interventions: [], steps: 10 }))).toMatch(
      /take one with the snapshot tool first/,
    );
  });

  it("is deterministic", () => {
    const args = { interventions: [{ kind: "impulse", object: "gray_platform", ix: 0, iy: 3 }], steps: 300 };
    const a = snapAt("catapult", 40);
    const b = snapAt("catapult", 40);
    const first = call(a.session, "intervene", { snapshot_id: a.id, ...args });
    expect(first.ok).toBe(true);
    expect(call(b.session, "intervene", { snapshot_id: b.id, ...args })).toStrictEqual(first);
  });
});
