import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawnHexa } from "./support/hexa-cli.ts";
import { makeRun } from "./support/inspect-runs.ts";
import { tempDirs } from "./support/temp-files.ts";

const tempDir = tempDirs("hexa-eval-count-");

describe("hexa eval --count with fewer unseen seeds left", () => {
  it("says so before it plays, with the number each level plays", async () => {
    const run = makeRun(join(tempDir(), "runs"), { rounds: 1, levels: ["two_body_problem"] });
    const { done } = spawnHexa(["eval", run, "--count", "10000"], {
      // Stopped once the evaluation says what it will play: the notice comes before that line.
      onStderr: (err, child) => void (/\d+ episodes/.test(err) && child.kill("SIGKILL")),
    });
    const { stderr } = await done;
    const notice = /note: --count 10000: fewer vetted seeds are left outside what the run learned from; evaluating two_body_problem (\d+)/.exec(stderr);
    expect(notice, stderr).not.toBeNull();
    expect(stderr).toContain(`, ${notice![1]} episodes`);
    expect(Number(notice![1])).toBeLessThan(10000);
  });
});
