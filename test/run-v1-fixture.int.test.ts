import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hexa, ROOT } from "./support/hexa-cli.ts";

/**
 * A run directory made before the family seam (test/fixtures/run-v1/README.md): trajectory schema 1, Interphyre's
 * settings under `actor:`, heuristic regions as JSON in the entries' text. Resume, eval and the bank commands
 * must still work on it, and the resumed round must be exactly what the old code played.
 */
const FIXTURES = join(ROOT, "test/fixtures/run-v1");
const NAME = readdirSync(FIXTURES).find((n) => n.startsWith("v1-fixture"))!;

const made: string[] = [];
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));
const copy = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "hexa-v1-"));
  made.push(dir);
  cpSync(join(FIXTURES, NAME), join(dir, NAME), { recursive: true });
  return join(dir, NAME);
};
const lines = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, any>);

describe("a version-1 run directory", () => {
  it("resumes: round 3 plays with the round-2 bank read from the old text encoding, exactly as the old code played it", async () => {
    const run = copy();
    const r = await hexa(["run", "--resume", run]);
    expect(r.status, r.stderr).toBe(0);
    const eps = lines(join(run, "episodes.jsonl"));
    // Lines are appended as episodes finish, so with two physics workers round 3's two may land in either order.
    expect(eps.map((e) => e.id).sort()).toEqual([
      "offline/catapult/r0/s12",
      "offline/catapult/r0/s13",
      "stream/catapult/r1/s1",
      "stream/catapult/r1/s5",
      "stream/catapult/r2/s6",
      "stream/catapult/r2/s9",
      "stream/catapult/r3/s10",
      "stream/catapult/r3/s11",
    ]);
    const byId = (id: string) => eps.find((e) => e.id === id);
    const [s10, s11] = [byId("stream/catapult/r3/s10"), byId("stream/catapult/r3/s11")];
    // What the pre-change code recorded for these two episodes (test/fixtures/run-v1/README.md).
    expect(s10!.trajectory).toMatchObject({
      schemaVersion: 2,
      success: true,
      turns: 3,
      action: { x: 0.15906229754446244, y: 0.34697365333075103, radius: 1.395 },
    });
    expect(s11!.trajectory).toMatchObject({ schemaVersion: 2, success: true, turns: 7, action: { x: 0.4702296456185482, y: 0.6281913674292783, radius: 1.5 } });
    expect(s10!.retrieved).toEqual(["s0_1", "m0_1"]);
    expect(s10!.bankRound).toBe(2);
    // The old lines are left as they were written.
    expect(eps[0]!.trajectory.schemaVersion).toBe(1);
    const log = lines(join(run, "bank-events.jsonl"));
    const round3 = log.filter((l) => l.event?.round === 3);
    expect(round3.map((l) => [l.event.type, l.event.entry?.id])).toEqual([["revise", "s0_1"]]);
    // The new revision carries its region as a typed payload, with sentences in the text.
    expect(round3[0]!.event.entry.payload.region).toMatchObject({ relativeTo: "green_ball" });
    expect(round3[0]!.event.entry.example).not.toMatch(/hint: \{/);
    expect(JSON.parse(readFileSync(join(run, "banks/round-03.json"), "utf8"))).toBeTruthy();
  });

  it("answers hexa bank show / history; hexa eval once resumed to its end", async () => {
    const run = copy();
    const show = await hexa(["bank", "show", run, "--round", "2"]);
    expect(show.status, show.stderr).toBe(0);
    expect(show.stdout).toContain("s0_1");
    const history = await hexa(["bank", "history", run]);
    expect(history.status, history.stderr).toBe(0);
    expect(history.stdout).toMatch(/add/);
    const unfinished = await hexa(["eval", run, "--count", "1"]);
    expect(unfinished.status).toBe(2);
    expect(unfinished.stderr).toMatch(/the run is unfinished/);
    expect((await hexa(["run", "--resume", run])).status).toBe(0);
    const ev = await hexa(["eval", run, "--count", "1"]);
    expect(ev.status, ev.stderr).toBe(0);
    const files = readdirSync(join(run, "eval"));
    expect(files).toHaveLength(1);
    const [rec] = lines(join(run, "eval", files[0]!));
    expect(rec!.trajectory.schemaVersion).toBe(2);
    expect(rec!.retrieved.length).toBeGreaterThan(0);
  });
});
