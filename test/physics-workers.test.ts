import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultPhysicsWorkers } from "../levels/interphyre/physics-host.ts";
import { hexa } from "./support/hexa-cli.ts";
import { tempDirs } from "./support/temp-files.ts";

const tmp = tempDirs("hexa-workers-");

/** A record with its clock readings removed (tool and wall times, timestamps): what must not depend on the pool. */
const timeless = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(timeless);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => !/(^ms$|Ms$|^at$|At$|^time)/.test(k))
      .map(([k, x]) => [k, timeless(x)]),
  );
};

const runWith = async (workers: number, engine: string): Promise<Record<string, unknown>> => {
  const dir = tmp();
  const config = join(dir, "run.yaml");
  writeFileSync(
    config,
    "levels: [two_body_problem, down_to_earth]\nagent: heuristic\nevolver: heuristic\ninit: off2on\nupdate: evolving\nrounds: 3\nepisodesPerRound: 3\noffline:\n  episodes: 3\n" +
      `interphyre:\n  engine: ${engine}\n`,
  );
  const out = await hexa(["run", config, "--runs-dir", join(dir, "runs")], { env: { HEXA_PHYSICS_WORKERS: String(workers) } });
  expect(out.status, out.stderr).toBe(0);
  const [id] = readdirSync(join(dir, "runs")).filter((d) => !d.startsWith("."));
  const run = join(dir, "runs", id!);
  expect(readFileSync(join(run, "config.yaml"), "utf8")).toMatch(new RegExp(`^  engine: ${engine}$`, "m"));
  const files: Record<string, unknown> = {};
  // Each episode is compared by id, so the check holds whatever order the file keeps.
  const lines = (f: string) =>
    readFileSync(join(run, f), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => timeless(JSON.parse(l)));
  files["episodes.jsonl"] = (lines("episodes.jsonl") as { id: string }[]).sort((a, b) => a.id.localeCompare(b.id));
  files["bank-events.jsonl"] = lines("bank-events.jsonl");
  // The run's id names its start time.
  const { run: _id, ...metrics } = JSON.parse(readFileSync(join(run, "metrics.json"), "utf8")) as Record<string, unknown>;
  files["metrics.json"] = timeless(metrics);
  for (const f of readdirSync(join(run, "banks"))) files[`banks/${f}`] = timeless(JSON.parse(readFileSync(join(run, "banks", f), "utf8")));
  return files;
};

describe("physics workers", () => {
  it.each(["planck", "box2d-wasm"])("one worker and two give the same run on %s: episodes, bank events, banks and metrics", async (engine) => {
    const [one, two] = [await runWith(1, engine), await runWith(2, engine)];
    expect((one["episodes.jsonl"] as unknown[]).length).toBe(24);
    for (const f of Object.keys(one)) expect(two[f], f).toEqual(one[f]);
  });

  it("size to the machine unless HEXA_PHYSICS_WORKERS says otherwise, which is checked", () => {
    expect(defaultPhysicsWorkers({})).toBeGreaterThanOrEqual(1);
    expect(defaultPhysicsWorkers({ HEXA_PHYSICS_WORKERS: "3" })).toBe(3);
    expect(() => defaultPhysicsWorkers({ HEXA_PHYSICS_WORKERS: "0" })).toThrow(/HEXA_PHYSICS_WORKERS must be an integer in \[1, 64\] \(got "0"\)/);
  });
});
