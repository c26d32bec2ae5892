import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { hexa } from "../support/hexa-cli.ts";
import { jsonlOf, tempDirs } from "../support/temp-files.ts";
import { copyRun, editLine, searchArgs } from "./verify-support.ts";

const tmp = tempDirs("hexa-verify-search-");
let dir = "";
let search = "";

beforeAll(async () => {
  dir = tmp();
  search = join(dir, "search");
  const r = await hexa(searchArgs(search, join(dir, "cache")));
  expect(r.status, r.stderr).toBe(0);
}, 180_000);

/** A search directory's trainings are read only from a folder the reader names (docs/security.md), never its settings' cacheDir. */
const readerCache = () => ["--trainer-cache", join(dir, "cache")];

const candidateLine = (path: string, index: number): number => jsonlOf(path).findIndex((c) => c.index === index);

describe("hexa verify on a hexa search directory (heuristic proposer)", () => {
  it("runs the search again from its record: identical, and --retrain 1 trains one recorded training again with the same F; --record keeps the result", async () => {
    const r = await hexa(["verify", search, "--retrain", "1", "--retrain-seed", "3", "--record", ...readerCache()]);
    expect(r.status, r.stderr).toBe(0);
    const [, trainings] = /^identical: 2 candidates, 0 model exchanges, (\d+) trainings checked/.exec(r.stdout) ?? [];
    // Two candidates, then the best, the sparse and the human reward on each of two fresh seeds; one retrained.
    expect(Number(trainings)).toBe(2 + 3 * 2 + 1);
    expect(r.stderr).toMatch(/retraining 1 of \d+ recorded trainings \(seed 3\) with the built-in trainer; F must match exactly/);
    const [retrained] = [...r.stderr.matchAll(/recorded F (\S+), retrained (\S+)/g)];
    expect(retrained?.[2]).toBe(retrained?.[1]);
    const recorded = JSON.parse(readFileSync(join(search, "verification.json"), "utf8"));
    expect(recorded).toMatchObject({ status: "identical", counts: { candidates: 2, modelExchanges: 0, trainings: 9 } });
  }, 180_000);

  it("a candidate's F edited in candidates.jsonl is the divergence, named by candidate and field", async () => {
    const copy = copyRun(search, tmp());
    const path = join(copy, "candidates.jsonl");
    const was = jsonlOf(path)[candidateLine(path, 1)]!.outcome.fitness;
    editLine(path, candidateLine(path, 1), (c) => {
      c.outcome.fitness = 474.5;
    });
    const r = await hexa(["verify", copy, ...readerCache()]);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toContain("diverged: search candidate #1 (candidates.jsonl)");
    expect(r.stdout).toMatch(/field: +outcome\.fitness\n +recorded: 474\.5\n +replayed: (\S+)/);
    expect(Number(/replayed: (\S+)/.exec(r.stdout)?.[1])).toBe(was);
  }, 120_000);

  it("a field of final-scores.json edited is the divergence, named by the task's final score and the field", async () => {
    const copy = copyRun(search, tmp());
    const path = join(copy, "final-scores.json");
    const scores = JSON.parse(readFileSync(path, "utf8"));
    const was = scores.levels[0].perSeed[1].human;
    scores.levels[0].perSeed[1].human = was + 1;
    writeFileSync(path, JSON.stringify(scores, null, 2));
    const r = await hexa(["verify", copy, ...readerCache()]);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toContain("diverged: final score of cartpole (final-scores.json)");
    expect(r.stdout).toContain(`field:    perSeed[1].human\n  recorded: ${was + 1}\n  replayed: ${was}`);
  }, 120_000);

  it("the same search run again (a resume of a finished one) keeps its first start and still verifies identical", async () => {
    const copy = copyRun(search, tmp());
    const before = JSON.parse(readFileSync(join(copy, "search-config.json"), "utf8"));
    const again = await hexa(searchArgs(copy, join(dir, "cache")));
    expect(again.status, again.stderr).toBe(0);
    const after = JSON.parse(readFileSync(join(copy, "search-config.json"), "utf8"));
    expect(after).toMatchObject({ startedAt: before.startedAt, resumed: true, settings: before.settings });
    const r = await hexa(["verify", copy, ...readerCache()]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^identical: 2 candidates/);
  }, 180_000);

  it("a search made before hexa recorded its settings (also once resumed), and one not finished, cannot be verified (exit 2), naming the missing file", async () => {
    const old = copyRun(search, tmp());
    rmSync(join(old, "search-config.json"));
    // Run again by this hexa, such a search gets no record: its first start is unknown.
    const again = await hexa(searchArgs(old, join(dir, "cache")));
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toContain(`note: ${old} was begun by a hexa that wrote no search-config.json; hexa verify cannot replay it`);
    const r = await hexa(["verify", old, ...readerCache()]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${join(old, "search-config.json")}: missing; the search was made by a hexa that did not record its settings`);
    const unfinished = copyRun(search, tmp());
    rmSync(join(unfinished, "final-scores.json"));
    const u = await hexa(["verify", unfinished, ...readerCache()]);
    expect(u.status).toBe(2);
    expect(u.stderr).toContain(`${join(unfinished, "final-scores.json")}: missing; the search has not finished`);
  }, 120_000);

  it("hexa bundle packs a search with its trainings' recorded results: the bundle verifies with the trainer cache gone", async () => {
    const bundle = join(tmp(), "search.tar.gz");
    const packed = await hexa(["bundle", search, "-o", bundle]);
    expect(packed.status, packed.stderr).toBe(0);
    const cache = join(dir, "cache");
    renameSync(cache, `${cache}-away`);
    try {
      const r = await hexa(["verify", bundle]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^identical: 2 candidates, 0 model exchanges, 8 trainings checked/);
    } finally {
      renameSync(`${cache}-away`, cache);
    }
  }, 180_000);
});
