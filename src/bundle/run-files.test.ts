import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirs } from "../../test/support/temp-files.ts";
import { runFiles } from "./run-files.ts";

const temp = tempDirs("hexa-run-files-");

const write = (root: string, files: readonly string[]): void => {
  for (const f of files) {
    mkdirSync(dirname(join(root, f)), { recursive: true });
    writeFileSync(join(root, f), "{}\n");
  }
};

const RUN = "runs/c1_x__s0__20260101T000000Z";

describe("the files of a hexa compare directory to pack", () => {
  it("the grid's records and each run's, less what is derived, and none of the caches its runs share", () => {
    const grid = temp();
    write(grid, [
      "compare.json",
      "results.json",
      "cells/c1-r0.yaml",
      "logs/c1-r0.log",
      "compare.lock",
      "report.html",
      `${RUN}/run.json`,
      `${RUN}/episodes.jsonl`,
      `${RUN}/trainer-cache/ab.json`,
      `${RUN}/report.html`,
      `${RUN}/run.lock`,
      `${RUN}/verification.json`,
      "runs/.trainer-cache/ab.json",
      "runs/.trainer-jobs/job-1/policy.json",
    ]);
    expect(runFiles(grid, { compare: true }).files).toEqual([
      "cells/c1-r0.yaml",
      "compare.json",
      "logs/c1-r0.log",
      "results.json",
      `${RUN}/episodes.jsonl`,
      `${RUN}/run.json`,
      `${RUN}/trainer-cache/ab.json`,
    ]);
  });

  it("refuses a grid one of whose runs holds finished episodes not yet written, naming that run", () => {
    const grid = temp();
    write(grid, ["compare.json", `${RUN}/run.json`]);
    mkdirSync(join(grid, RUN, "held"));
    writeFileSync(join(grid, RUN, "held", "stream%2Fx.json"), "{}");
    expect(() => runFiles(grid, { compare: true })).toThrow(new RegExp(`${RUN}/held: 1 finished episode`));
  });
});
