import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultPhysicsWorkers } from "../levels/interphyre/physics-host.ts";
import { hexa } from "./support/hexa-cli.ts";
import { runRecordsWithoutClocks } from "./support/run-records.ts";
import { tempDirs } from "./support/temp-files.ts";

const tmp = tempDirs("hexa-workers-");

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
  return runRecordsWithoutClocks(run);
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
