import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hexaVersion, startHostileWorker, type HostileWorker } from "../support/hostile-worker.ts";
import { startRedis, type RedisServer } from "../support/redis-server.ts";

/**
 * The bank inside a signed episode job is checked as a bank file is where it enters a run (docs/security.md,
 * docs/spec/method.md §3): every entry with the family's payload schema, and within the run's caps. A bank that
 * fails is refused once, naming the job and the field, before the episode is played.
 */

const KEY = "test-job-key-0123456789abcdef";
type Json = Record<string, any>;
const shipped = (): Json => JSON.parse(readFileSync("skills/banks/catapult.heuristic.json", "utf8")) as Json;

let redis: RedisServer;
let tmp: string;
let worker: HostileWorker;

beforeAll(async () => {
  redis = await startRedis();
  tmp = mkdtempSync(join(tmpdir(), "hexa-hostile-banks-"));
  worker = await startHostileWorker(redis.port, ["--runs-dir", join(tmp, "runs")], KEY);
});
afterAll(async () => {
  await worker?.close();
  await redis?.kill();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

let n = 0;
const episodeJob = (bank: Json) => ({
  schemaVersion: 2,
  hexa: hexaVersion,
  run: "hostile-run",
  config: { family: "interphyre", levels: ["catapult"], agent: "heuristic" },
  episode: { id: `stream/catapult/r1/s${++n}`, phase: "stream", level: "catapult", round: 1, seed: 56, agent: "heuristic", bankRound: 0 },
  bank: { skills: bank.skills, mistakes: bank.mistakes ?? [] },
});

describe("hexa worker checks the bank an episode job carries", () => {
  it("a skill whose region is reversed (dx: [5, -5]): refused once, naming the entry and the field", async () => {
    const bank = shipped();
    bank.skills[0].payload.region.dx = [5, -5];
    const r = await worker.inject("episodes", episodeJob(bank));
    expect(r.error).toMatch(
      new RegExp(`job hostile-\\d+-\\d+: bank: skill '${bank.skills[0].id}' \\(skills\\[0\\]\\): payload\\.region\\.dx: .*\\(got \\[5,-5\\]\\)`),
    );
    expect(r.error).not.toMatch(/ZodError|\n\s+at /);
    expect(r.attempts).toBe(1);
  });

  it("more skills than the run's cap (bank.maxSkills, 10 by default): refused once, naming the count and the cap", async () => {
    const one = shipped().skills[0] as Json;
    const skills = Array.from({ length: 2_000 }, (_, i) => ({ ...one, id: `flood-${i}` }));
    const r = await worker.inject("episodes", episodeJob({ skills }));
    expect(r.error).toMatch(/bank\.skills: 2000 entries, over the run's cap of 10 \(bank\.maxSkills\)/);
    expect(r.attempts).toBe(1);
  });

  it("the shipped bank, unchanged, is played", async () => {
    const r = await worker.inject("episodes", episodeJob(shipped()));
    expect(r.error, worker.stderr()).toBeUndefined();
  });
});
