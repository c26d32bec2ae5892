import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { PoolOutcome } from "../trainer/pool.ts";
import { searchCachePool } from "./search-cached.ts";

const dir = mkdtempSync(join(tmpdir(), "hexa-search-cached-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const START = new Date("2026-12-07T10:00:00Z");
const entry = (name: string, storedAt: string) => {
  const path = join(dir, `${name}.json`);
  const outcome = { kind: "error", error: { kind: "internal", message: "stand-in" } };
  writeFileSync(path, JSON.stringify({ schemaVersion: 2, key: name, trainer: { name: "t", version: "1" }, task: "cartpole", storedAt, outcome }));
  return path;
};
/** A pool answering every job from the cache entry `path`, as the trainer pool reports a hit. */
const hits = (path: string) => ({
  train: async () => ({ kind: "error", error: { kind: "crash", message: "" }, cached: true, jobDir: null, entry: path }) as unknown as PoolOutcome,
});
const job = {} as Parameters<ReturnType<typeof searchCachePool>["train"]>[0];

describe("a search's cached trainings", () => {
  it("are cached when stored before the search started, or used before by this process, as hexa verify's replay says", async () => {
    const before = searchCachePool(hits(entry("old", "2026-12-07T09:00:00Z")), () => START);
    expect((await before.train(job)).cached).toBe(true);
    // Stored after the start by a process of this search that was killed: that search's own training.
    const during = searchCachePool(hits(entry("new", "2026-12-07T10:05:00Z")), () => START);
    expect((await during.train(job)).cached).toBe(false);
    expect((await during.train(job)).cached).toBe(true);
  });

  it("are as the pool says before the search's start is recorded", async () => {
    const unrecorded = searchCachePool(hits(entry("new2", "2026-12-07T10:05:00Z")), () => undefined);
    expect((await unrecorded.train(job)).cached).toBe(true);
  });
});
