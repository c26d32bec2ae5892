import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { holdSearchDir, SEARCH_LOCK } from "./search-hold.ts";

const fresh = () => mkdtempSync(join(tmpdir(), "hexa-search-hold-"));

describe("holdSearchDir", () => {
  it("removes the temporary files a killed writer left, in the folder and below, and nothing else", () => {
    const dir = fresh();
    mkdirSync(join(dir, "trainings"));
    mkdirSync(join(dir, ".trainer-jobs"));
    writeFileSync(join(dir, "trainings", "it0-c0-s16.json"), "{}");
    writeFileSync(join(dir, "trainings", "it0-c1-s16.json.tmp-4242-0a1b2c3d4e5f"), "{");
    writeFileSync(join(dir, "plans.jsonl.tmp-4242"), "");
    writeFileSync(join(dir, ".trainer-jobs", "job.json.tmp-4242-00ff"), "");
    const elsewhere = fresh();
    writeFileSync(join(elsewhere, "x.json.tmp-1-ab"), "");
    symlinkSync(elsewhere, join(dir, "linked"));
    const hold = holdSearchDir(dir);
    if ("busy" in hold) throw new Error(`held by ${hold.busy}`);
    expect(hold.removed.map((p) => p.slice(dir.length + 1)).sort()).toEqual(["plans.jsonl.tmp-4242", "trainings/it0-c1-s16.json.tmp-4242-0a1b2c3d4e5f"]);
    expect(readdirSync(join(dir, "trainings"))).toEqual(["it0-c0-s16.json"]);
    expect(existsSync(join(dir, ".trainer-jobs", "job.json.tmp-4242-00ff"))).toBe(true);
    expect(existsSync(join(elsewhere, "x.json.tmp-1-ab"))).toBe(true);
    hold.release();
    expect(existsSync(join(dir, SEARCH_LOCK))).toBe(false);
  });

  it("is busy while a live process holds the search, and removes nothing then", () => {
    const dir = fresh();
    writeFileSync(join(dir, "plans.jsonl.tmp-4242-ab"), "");
    // pid 1 is always alive: another process's lock.
    writeFileSync(join(dir, SEARCH_LOCK), "1\n");
    expect(holdSearchDir(dir)).toEqual({ busy: "process 1" });
    expect(existsSync(join(dir, "plans.jsonl.tmp-4242-ab"))).toBe(true);
  });

  it("takes over the lock of a process that is gone", () => {
    const dir = fresh();
    writeFileSync(join(dir, SEARCH_LOCK), "999999999\n");
    const hold = holdSearchDir(dir);
    expect("release" in hold).toBe(true);
    if ("release" in hold) hold.release();
  });
});
