import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { hexa, spawnHexa } from "../support/hexa-cli.ts";
import { jsonlOf, tempDirs } from "../support/temp-files.ts";
import { copyRun, runIn } from "./verify-support.ts";

/**
 * `hexa verify` of p2p searches (heuristic reviser, fitness judge, built-in trainer on cartpole): the reviser reads
 * each training's PPO diagnostics, so a replay answered from the trainer cache must report the same ones.
 */

const tmp = tempDirs("hexa-verify-p2p-");
let dir = "";
let search = "";

const p2pArgs = (out: string, cache: string, seed = 2): string[] => [
  "search",
  "cartpole",
  "--strategy",
  "p2p",
  "--budget",
  "4",
  "--configs",
  "2",
  "--train-seeds",
  "1",
  "--train-steps",
  "2048",
  "--final-steps",
  "1024",
  "--final-trainings",
  "1",
  "--processes",
  "1",
  "--seed",
  String(seed),
  "--out",
  out,
  "--trainer-cache",
  cache,
];

const FIRST = "trainings/it0-c0-s16.json";
const json = (path: string) => JSON.parse(readFileSync(path, "utf8"));
const entriesOf = (cache: string) => readdirSync(cache).filter((n) => n.endsWith(".json"));

/** A copy of the search's trainer cache, each entry passed through `edit` (which returns whether it changed it). */
const editedCache = (edit: (entry: Record<string, any>) => boolean): { cache: string; edited: string[] } => {
  const cache = join(tmp(), "cache");
  cpSync(join(dir, "cache"), cache, { recursive: true });
  const edited = entriesOf(cache).filter((name) => {
    const entry = json(join(cache, name));
    if (!edit(entry)) return false;
    writeFileSync(join(cache, name), JSON.stringify(entry, null, 2));
    return true;
  });
  return { cache, edited };
};

/** The entry of the search's first training: the one whose loss summary its record's diagnostics came from. */
const isFirstTraining = (entry: Record<string, any>): boolean => entry.outcome?.losses?.entropy === json(join(search, FIRST)).outcome.diagnostics.entropy;

beforeAll(async () => {
  dir = tmp();
  search = join(dir, "search");
  const r = await hexa(p2pArgs(search, join(dir, "cache")));
  expect(r.status, r.stderr).toBe(0);
}, 180_000);

describe("hexa verify of a p2p search", () => {
  it("is identical: each training answered from the cache reports the PPO diagnostics it reported when it trained", async () => {
    const diagnostics = json(join(search, FIRST)).outcome.diagnostics;
    expect(diagnostics.entropy).toEqual(expect.any(Number));
    expect(diagnostics.approxKl).toEqual(expect.any(Number));
    const r = await hexa(["verify", search, "--trainer-cache", join(dir, "cache")]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^identical: .* 7 trainings checked/);
  }, 120_000);

  it("a diagnostic edited in a training's record is the divergence, named by file and field", async () => {
    const copy = copyRun(search, tmp());
    const record = json(join(copy, FIRST));
    const was = record.outcome.diagnostics.entropy;
    record.outcome.diagnostics.entropy = was + 1;
    writeFileSync(join(copy, FIRST), JSON.stringify(record, null, 2));
    const r = await hexa(["verify", copy, "--trainer-cache", join(dir, "cache")]);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toContain(`diverged: ${FIRST}\n  field:    outcome.diagnostics.entropy\n  recorded: ${was + 1}\n  replayed: ${was}`);
  }, 120_000);

  it("a loss summary edited in the trainer cache is replayed as recorded there: the record's field differs", async () => {
    const { cache, edited } = editedCache((e) => isFirstTraining(e) && Boolean((e.outcome.losses.entropy = 0.125)));
    expect(edited).toHaveLength(1);
    const r = await hexa(["verify", search, "--trainer-cache", cache]);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toContain(`diverged: ${FIRST}\n  field:    outcome.diagnostics.entropy\n`);
    expect(r.stdout).toContain("replayed: 0.125");
  }, 120_000);

  it("a loss summary that is not one cannot be verified (exit 2), naming the entry and the field", async () => {
    const { cache, edited } = editedCache((e) => isFirstTraining(e) && Boolean((e.outcome.losses.entropy = "high")));
    const r = await hexa(["verify", search, "--trainer-cache", cache]);
    expect(r.status, r.stdout).toBe(2);
    expect(r.stderr).toContain(`${join(cache, edited[0]!)}: outcome.losses.entropy:`);
  }, 120_000);

  it("entries stored without a loss summary still read, but say what they lack: verify exit 2 naming one; a new search trains them again", async () => {
    const { cache, edited } = editedCache((e) => e.outcome.kind === "result" && delete e.outcome.losses);
    expect(edited).toHaveLength(entriesOf(cache).length);
    const r = await hexa(["verify", search, "--trainer-cache", cache]);
    expect(r.status, r.stdout).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`${cache}/[0-9a-f]{64}\\.json: outcome\\.losses: missing; the entry was stored by a hexa whose trainer cache kept no summary`),
    );
    const again = join(tmp(), "again");
    const s = await hexa(p2pArgs(again, cache));
    expect(s.status, s.stderr).toBe(0);
    expect(s.stderr.match(/keeps no summary of the training's PPO losses, which this search reads\); training again/g)).toHaveLength(4);
    // The final trainings read no losses: their old entries still answer them.
    expect(s.stdout).toContain("4 trainings (4 trained now)");
    expect(json(join(again, FIRST)).outcome.diagnostics).toEqual(json(join(search, FIRST)).outcome.diagnostics);
    const v = await hexa(["verify", again, "--trainer-cache", cache]);
    expect(v.status, v.stderr).toBe(0);
  }, 240_000);

  it("killed with SIGKILL mid-iteration and resumed, the search verifies identical", async () => {
    const d = tmp();
    const out = join(d, "search");
    const args = p2pArgs(out, join(d, "cache"), 3);
    const written = () => (existsSync(join(out, "trainings")) ? readdirSync(join(out, "trainings")).length : 0);
    const { child, done } = spawnHexa(args, { detached: true });
    const started = Date.now();
    while (written() < 1 && Date.now() - started < 90_000) await new Promise((r) => setTimeout(r, 100));
    process.kill(-child.pid!, "SIGKILL");
    await done;
    expect(written()).toBeGreaterThanOrEqual(1);
    expect(written()).toBeLessThan(4);
    const resumed = await hexa(args);
    expect(resumed.status, resumed.stderr).toBe(0);
    const r = await hexa(["verify", out, "--trainer-cache", join(d, "cache")]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^identical: .* 7 trainings checked/);
  }, 240_000);

  it("hexa run with method: p2p verifies identical, its trainings answered from the run's own trainer-cache/", async () => {
    const d = tmp();
    const cfg = join(d, "p2p.yaml");
    writeFileSync(
      cfg,
      [
        "family: reward-search",
        "levels: [cartpole]",
        "method: p2p",
        "agent: heuristic",
        "evolver: heuristic",
        "search: {budget: 4, p2p: {configs: 2, trainSeeds: 1}}",
        "seeds: {offset: 2}",
        `rewardSearch: {trainSteps: 2048, finishSteps: 1024, finalTrainings: 1, cacheDir: ${join(d, "cache")}, jobsDir: ${join(d, "jobs")}}`,
        "",
      ].join("\n"),
    );
    const made = await hexa(["run", cfg, "--runs-dir", join(d, "runs")]);
    expect(made.status, made.stderr).toBe(0);
    const run = runIn(join(d, "runs"));
    const first = json(join(run, "search", "cartpole", FIRST));
    expect(first.outcome.diagnostics.entropy).toEqual(expect.any(Number));
    expect(jsonlOf(join(run, "search", "cartpole", "plans.jsonl"))).toHaveLength(2);
    const r = await hexa(["verify", run]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^identical: .* 7 trainings checked/);
  }, 240_000);
});
