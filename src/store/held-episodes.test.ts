import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirs } from "../../test/support/temp-files.ts";
import { HeldEpisodes } from "./held-episodes.ts";
import { EpisodeRecord } from "./run-records.ts";

const temp = tempDirs("hexa-held-store-");

/** A real episode record (the first of a fixture run), as the loop has it in memory. */
const FIXTURE = "test/fixtures/run-v1/v1-fixture__heuristic-off2on-evolving-heuristic-evolver__s0__20261203T062826Z/episodes.jsonl";
const record = EpisodeRecord.parse(JSON.parse(readFileSync(FIXTURE, "utf8").split("\n")[0]!));
const other = { ...record, id: `${record.id}9`, seed: record.seed * 10 + 9 };
const playedWith = { bank: "a".repeat(64), job: "b".repeat(64) };

const spool = () => new HeldEpisodes(join(temp(), "held"));
const fileOf = (s: HeldEpisodes, id: string) => join(s.path, `${encodeURIComponent(id)}.json`);

describe("the held/ spool (docs/ARCHITECTURE.md §6)", () => {
  it("reads back each held episode with what it was played with, and its line exactly as episodes.jsonl would get it", () => {
    const s = spool();
    s.hold(record, playedWith);
    s.hold(other, playedWith);
    expect(readdirSync(s.path).sort()).toEqual([`${encodeURIComponent(record.id)}.json`, `${encodeURIComponent(other.id)}.json`].sort());
    const { held, unreadable } = s.read();
    expect(unreadable).toEqual([]);
    const mine = held.find((h) => h.record.id === record.id)!;
    expect(mine.playedWith).toEqual(playedWith);
    expect(JSON.stringify(mine.line)).toBe(JSON.stringify(record));
    expect(mine.record).toEqual(record);
  });

  it("once every episode is released, the folder goes; it stays while one is held", () => {
    const s = spool();
    s.hold(record, playedWith);
    s.hold(other, playedWith);
    s.release(record.id);
    s.removeIfEmpty();
    expect(s.count()).toBe(1);
    s.release(other.id);
    s.removeIfEmpty();
    expect(existsSync(s.path)).toBe(false);
  });

  it("reports apart, never as held: a record edited by hand, a file renamed to another episode, a torn file", () => {
    const s = spool();
    s.hold(record, playedWith);
    const edited = JSON.parse(readFileSync(fileOf(s, record.id), "utf8")) as { record: { r: number } };
    edited.record.r = 1;
    writeFileSync(fileOf(s, record.id), JSON.stringify(edited));
    s.hold(other, playedWith);
    renameSync(fileOf(s, other.id), join(s.path, "stream%2Felsewhere%2Fr1%2Fs3.json"));
    writeFileSync(join(s.path, "stream%2Felsewhere%2Fr1%2Fs4.json"), '{"schemaVersion":1,"playedWith":');
    const { held, unreadable } = s.read();
    expect(held).toEqual([]);
    const problemOf = (name: string) => unreadable.find((u) => u.file === join(s.path, name))?.problem;
    expect(problemOf(`${encodeURIComponent(record.id)}.json`)).toMatch(/does not match its checksum/);
    expect(problemOf("stream%2Felsewhere%2Fr1%2Fs3.json")).toBe(`holds episode ${other.id}, not the one its name says`);
    expect(problemOf("stream%2Felsewhere%2Fr1%2Fs4.json")).toMatch(/^not valid JSON/);
  });
});
