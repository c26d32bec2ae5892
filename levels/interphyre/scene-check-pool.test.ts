import { afterAll, describe, expect, it } from "vitest";
import { fixturesPresent, loadFixtureFiles, noticeIfAbsent } from "../../test/support/fixtures.ts";
import { PhysicsHost } from "./physics-host.ts";
import { checkScenes } from "./scene-check.ts";
import { checkScenesInWorkers } from "./scene-check-pool.ts";
import { ENGINES, loadEngine } from "./world/engines.ts";

// Without ../shared the tests below are reported as skipped (never as passed); this says why.
noticeIfAbsent("check-scenes over physics workers");

const hosts: PhysicsHost[] = [];
afterAll(() => Promise.all(hosts.map((h) => h.close())));

describe.runIf(fixturesPresent).each(ENGINES)("check-scenes over physics workers with %s", (engine) => {
  it("gives one thread's report, failed seeds and their order included, with one worker and with two", async () => {
    // Whole reports are compared (failed seeds too, where an engine misses a solution), not only counts.
    const files = loadFixtureFiles()
      .filter((f) => ["catapult", "marble_race"].includes(f.level))
      .map((f) => ({ ...f, entries: f.entries.slice(0, 40) }));
    const inThread = checkScenes(files, 1000, undefined, await loadEngine(engine));
    const seen: string[] = [];
    for (const workers of [1, 2]) {
      const host = new PhysicsHost({ workers });
      hosts.push(host);
      const report = await checkScenesInWorkers(host, files, 1000, engine, (level, done, total) => seen.push(`${level} ${done}/${total}`));
      expect(report).toEqual(inThread);
      expect(host.workers).toBe(workers);
    }
    expect(inThread.total).toBe(80);
    expect(seen).toContain("marble_race 40/40");
  });
});
