import { PassThrough } from "node:stream";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { progressView } from "../src/app/progress.ts";
import { hexa } from "./support/inspect-runs.ts";
import { tempDirs } from "./support/temp-files.ts";
import { writeFileSync } from "node:fs";

const tempDir = tempDirs("hexa-run-progress-");

describe("hexa run's progress lines", () => {
  it("name the phase of each episode recorded: as many offline lines as offline episodes, then rounds", () => {
    const dir = tempDir();
    const config = join(dir, "two.yaml");
    writeFileSync(
      config,
      "levels: [two_body_problem, down_to_earth]\nagent: heuristic\nevolver: heuristic\ninit: off2on\nupdate: evolving\nrounds: 3\nepisodesPerRound: 2\noffline: {episodes: 3}\n",
    );
    const r = hexa(["run", config, "--runs-dir", join(dir, "runs")]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split("\n").filter((l) => /^\[\d+\/18\]/.test(l));
    expect(lines).toHaveLength(18);
    expect(lines.filter((l) => / offline: /.test(l))).toHaveLength(6);
    // Levels advance independently; each one's lines read offline × 3, then its rounds in order.
    for (const level of ["two_body_problem", "down_to_earth"]) {
      const phases = lines.map((l) => new RegExp(`^\\[\\d+/18\\] ${level} (offline|round \\d)`).exec(l)?.[1]).filter(Boolean);
      expect(phases).toEqual(["offline", "offline", "offline", "round 1", "round 1", "round 2", "round 2", "round 3", "round 3"]);
    }
  });

  it("say 1 success, not 1 successes", () => {
    const out = new PassThrough();
    let text = "";
    out.on("data", (d: Buffer) => (text += d.toString()));
    const view = progressView(out as unknown as NodeJS.WriteStream, () => 0);
    view.update({ phase: "stream", round: 1, done: 1, total: 2, successes: 1, tokens: 0, costUsd: 0 });
    view.update({ phase: "stream", round: 1, done: 2, total: 2, successes: 2, tokens: 0, costUsd: 0 });
    expect(text).toBe("[1/2] round 1: 1 success, 0 tokens, $0.0000, 0s\n[2/2] round 1: 2 successes, 0 tokens, $0.0000, 0s\n");
  });
});
