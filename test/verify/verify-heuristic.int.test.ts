import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { hexa } from "../support/hexa-cli.ts";
import { jsonlOf, tempDirs } from "../support/temp-files.ts";
import { copyRun, editLine, runIn } from "./verify-support.ts";

const tmp = tempDirs("hexa-verify-heuristic-");
let run = "";

/** A small heuristic run (no model): its replay is pure re-execution of the physics, tools and bank. */
beforeAll(async () => {
  const dir = tmp();
  const cfg = join(dir, "small.yaml");
  writeFileSync(cfg, "levels: [two_body_problem]\nagent: heuristic\nevolver: heuristic\nrounds: 1\nepisodesPerRound: 2\noffline: {episodes: 1}\n");
  const r = await hexa(["run", cfg, "--runs-dir", join(dir, "runs")]);
  expect(r.status, r.stderr).toBe(0);
  run = runIn(join(dir, "runs"));
}, 120_000);

describe("hexa verify on a heuristic run", () => {
  it("replays it identical (exit 0) with its counts, and writes verification.json only with --record", async () => {
    const r = await hexa(["verify", run]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^identical: 3 episodes, \d+ bank events, 0 model exchanges, 0 trainings checked/);
    expect(existsSync(join(run, "verification.json"))).toBe(false);

    const recorded = await hexa(["verify", run, "--record"]);
    expect(recorded.status, recorded.stderr).toBe(0);
    const v = JSON.parse(readFileSync(join(run, "verification.json"), "utf8")) as Record<string, any>;
    expect(Object.keys(v).sort()).toEqual(["codeVersion", "counts", "status", "verifiedAt"]);
    expect(v.status).toBe("identical");
    expect(v.counts.episodes).toBe(3);
    expect(v.codeVersion).toMatch(/^hexa \S+/);
  }, 120_000);

  it("a bundle of the run verifies identical from the .tar.gz, naming its manifest hash; inspect shows the recorded check", async () => {
    const bundle = join(tmp(), "run.tar.gz");
    const packed = await hexa(["bundle", run, "-o", bundle]);
    expect(packed.status, packed.stderr).toBe(0);
    const hash = (JSON.parse(readFileSync(join(run, "bundle.json"), "utf8")) as { manifestHash: string }).manifestHash;
    const r = await hexa(["verify", bundle, "--record"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`manifest hash ${hash}`);
    expect(r.stderr).toContain("not recorded: a bundle is verified in a temporary copy");
    expect(r.stdout).toMatch(/^identical: 3 episodes/);
    await hexa(["verify", run, "--record"]);
    const shown = await hexa(["inspect", run, "--out", join(tmp(), "report.html")]);
    expect(shown.status, shown.stderr).toBe(0);
    expect(`${shown.stdout}${shown.stderr}`).toMatch(/identical/);
    expect(`${shown.stdout}${shown.stderr}`).toContain(hash);
  }, 180_000);

  it("an episode's result edited in episodes.jsonl is the first divergence (exit 1), naming the episode and the field", async () => {
    const copy = copyRun(run, tmp());
    editLine(join(copy, "episodes.jsonl"), 2, (e) => {
      e.trajectory.success = !e.trajectory.success;
    });
    const id = (JSON.parse(readFileSync(join(copy, "episodes.jsonl"), "utf8").split("\n")[2]!) as { id: string }).id;
    const r = await hexa(["verify", copy]);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toContain(`diverged: episode ${id}`);
    expect(r.stdout).toMatch(/field: +trajectory\.success/);
    expect(r.stdout).toMatch(/recorded: (true|false)\n {2}replayed: (true|false)/);
  }, 120_000);

  it("a bank event edited in bank-events.jsonl is named (exit 1): which event, the field, both values", async () => {
    const copy = copyRun(run, tmp());
    editLine(join(copy, "bank-events.jsonl"), 0, (l) => {
      l.event.entry.title = "an edited title";
    });
    const r = await hexa(["verify", copy]);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/diverged: bank event 1 \(two_body_problem round 0 add \S+\)/);
    expect(r.stdout).toMatch(/field: +event\.entry\.title\n {2}recorded: "an edited title"/);
  }, 120_000);

  it("on a hexa compare directory, replays every run, then checks the results table's rates against them (an edited rate is named, exit 1)", async () => {
    const dir = tmp();
    const copy = copyRun(run, join(dir, "runs"));
    const rate = (r: number) => ({ cells: [{ id: "c1", runs: [{ run: 0, dir: copy }], levels: [{ level: "two_body_problem", stream: { perRun: [r] } }] }] });
    const eps = jsonlOf(join(run, "episodes.jsonl")).filter((e) => e.phase === "stream");
    const truth = eps.filter((e) => e.trajectory.success).length / eps.length;
    writeFileSync(join(dir, "compare.json"), "{}");
    writeFileSync(join(dir, "results.json"), JSON.stringify(rate(truth === 1 ? 0.5 : 1)));
    const r = await hexa(["verify", dir]);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toContain("diverged: results table (results.json), cell c1 run 0");
    expect(r.stdout).toMatch(new RegExp(`field: +two_body_problem stream success rate\n {2}recorded: (0.5|1)\n {2}replayed: ${truth}`));
  }, 120_000);

  it("a directory that is not a run cannot be verified (exit 2) and says why", async () => {
    const r = await hexa(["verify", tmp()]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/cannot verify .*run\.json/);
  }, 60_000);
});
