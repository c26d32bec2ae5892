import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../bench/page.ts";
import { fixturesPresent, noticeIfAbsent } from "./support/fixtures.ts";

/** Small runs of the CLI-driving bench scripts end to end (docs/benchmarks/README.md): the tables they print. */
const bench = (script: string, ...args: string[]) =>
  spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bench", script), ...args], { cwd: ROOT, encoding: "utf8", timeout: 180_000 });

noticeIfAbsent("bench/fidelity.ts end to end");

describe("bench scripts end to end, small settings", () => {
  it.skipIf(!fixturesPresent)("fidelity.ts on one level prints each engine's reproduced count and a total", () => {
    const r = bench("fidelity.ts", "--levels", "end_of_line", "--engines", "planck");
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines).toContainEqual(expect.stringMatching(/^level\s+planck$/));
    const row = lines.find((l) => l.startsWith("end_of_line "));
    expect(row).toMatch(/^end_of_line\s+(\d+)\/100 \d+\.\d%$/);
    expect(lines).toContainEqual(expect.stringMatching(/^total\s+\d+\/100 \d+\.\d%$/));
    expect(r.stdout).toMatch(/^planck: \d+\/100 reproduced \(\d+\.\d%\) in \d+\.\d s/m);
  });

  it("certify.ts certifies two seeds of a level afresh and finds them as shipped", () => {
    const r = bench("certify.ts", "--levels", "end_of_line", "--seeds", "2", "--workers", "1");
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines).toContainEqual(expect.stringMatching(/^level\s+certified\s+tried\s+trivial\s+corner\s+unsolved\s+mean rollouts \(certified\)$/));
    expect(lines.find((l) => l.startsWith("end_of_line "))).toMatch(/^end_of_line\s+2\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\.\d$/);
    expect(r.stdout).toMatch(/^end_of_line: all \d+ seeds tried match the shipped file$/m);
    expect(r.stdout).toMatch(/^\d+ rollouts in \d+ s \(whole processes, --workers 1\)$/m);
  });
});
