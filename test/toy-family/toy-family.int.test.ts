import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hexa } from "../support/hexa-cli.ts";
import { jsonlOf, tempDirs } from "../support/temp-files.ts";

/** The toy family joins through HEXA_FAMILIES alone: no file of hexa's generic code names it. */
const env = { HEXA_FAMILIES: "examples/toy-family/family.ts" };
const tmp = tempDirs("hexa-toy-");

describe("a third family added through the registry alone", () => {
  it("is listed by hexa levels list with its own columns", async () => {
    const out = await hexa(["levels", "list", "--family", "toy"], { env });
    expect(out.stderr).toBe("");
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/^Toy: guess a secret number\nlevel\s+span\s+description\n/);
    expect(out.stdout).toMatch(/guess_large\s+4\s+Find a secret integer in \[0, 4 × size\)/);
  });

  it("plays hexa episode with the heuristic, its config slice's field as a flag", async () => {
    const out = await hexa(
      ["episode", "guess_large", "--family", "toy", "--seed", "5", "--agent", "heuristic", "--size", "8", "--out", join(tmp(), "t.json")],
      { env },
    );
    expect(out.status).toBe(0);
    // secret = (5 · 7919 + 13) mod 32 = 20: bisecting [0, 31] probes 15, 23, 19, 21, 20.
    expect(out.stderr).toMatch(/turn {2}1 {2}probe\s+higher[\s\S]*turn {2}5 {2}probe\s+found/);
    expect(out.stdout).toMatch(/^SUCCESS in 5 turns; agent heuristic \(no LLM\)/);
    const bad = await hexa(["episode", "guess_large", "--family", "toy", "--seed", "5", "--agent", "heuristic", "--size", "1"], { env });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--size/);
    const foreign = await hexa(["episode", "guess_large", "--family", "toy", "--seed", "5", "--agent", "heuristic", "--horizon", "10"], { env });
    expect(foreign.stderr).toMatch(/--horizon is not a flag of family toy; its flags: --size/);
  });

  it("runs rounds with hexa run and is drawn by hexa inspect", async () => {
    const dir = tmp();
    // The example's own config (examples/toy-family/README.md).
    const config = "examples/toy-family/toy.yaml";
    const run = await hexa(["run", config, "--runs-dir", join(dir, "runs")], { env });
    expect(run.stderr).not.toMatch(/Error|hexa:/);
    expect(run.status).toBe(0);
    const [id] = readdirSync(join(dir, "runs")).filter((d) => !d.startsWith("."));
    const runDir = join(dir, "runs", id!);
    const episodes = jsonlOf(join(runDir, "episodes.jsonl"));
    expect(episodes.filter((e) => e.phase === "stream")).toHaveLength(8);
    expect(episodes.every((e) => e.trajectory.success && e.trajectory.agent === "heuristic (no LLM)")).toBe(true);
    // The example's evolver distils something to see: bisection as a skill per level, reweighted each round.
    const events = jsonlOf(join(runDir, "bank-events.jsonl")).filter((l) => l.event);
    for (const level of ["guess_small", "guess_large"]) {
      const mine = events.filter((l) => l.level === level).map((l) => l.event);
      expect(mine.map((e) => e.type)).toEqual(["add", "reweight", "reweight"]);
      expect(mine[0].entry).toMatchObject({ id: `${level}-bisect`, title: "Bisect the range" });
    }
    expect(run.stderr).toContain("guess_small round 0: bank updated with 1 event; now 1 skill, 0 mistakes");
    const report = join(dir, "report.html");
    const inspect = await hexa(["inspect", runDir, "--out", report], { env });
    expect(inspect.status).toBe(0);
    expect(existsSync(report)).toBe(true);
    expect(readFileSync(report, "utf8")).toContain("x=");
  });

  it("refuses a family module that is not one, by its path", async () => {
    const out = await hexa(["levels", "list"], { env: { HEXA_FAMILIES: "test/toy-family/missing.ts" } });
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/^hexa: HEXA_FAMILIES: cannot load "test\/toy-family\/missing.ts"/);
  });
});
