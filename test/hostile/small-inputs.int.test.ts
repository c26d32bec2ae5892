import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hexa } from "../support/hexa-cli.ts";
import { type RedisServer, startRedis } from "../support/redis-server.ts";
import { tempDirs } from "../support/temp-files.ts";

/** What a careless user or another program leaves where hexa reads: a config of megabytes, a stray entry in Redis. */

const tmp = tempDirs("hexa-hostile-small-");

describe("a config file over the size limit", () => {
  // A generated file that grew: a valid start, then a megabyte more (a YAML of millions of nodes takes gigabytes to parse).
  const text = `levels: [catapult]\nagent: heuristic\nevolver: heuristic\nnotes:\n${"  - one more generated line\n".repeat(40_000)}`;
  const bigConfig = (dir: string): string => {
    const path = join(dir, "grown.yaml");
    writeFileSync(path, text);
    return path;
  };
  const refusal = (path: string) =>
    `hexa: ${path}: ${Buffer.byteLength(text).toLocaleString("en")} bytes, over the 1,000,000-byte limit of a config file; a run config is a few kB: check that this is the file you meant\n`;

  it("is refused by hexa run, compare, transfer and doctor before it is parsed, naming the file and the limit, with nothing written", async () => {
    const dir = tmp();
    const path = bigConfig(dir);
    const commands = [
      ["run", path, "--runs-dir", join(dir, "runs")],
      ["compare", path, "--out", join(dir, "compare")],
      ["transfer", "--from", "catapult", "--to", "pass_the_parcel", "--config", path, "--out", join(dir, "transfer")],
      ["doctor", path],
    ];
    for (const args of commands) {
      const r = await hexa(args);
      expect(r.stderr, args[0]).toBe(refusal(path));
      expect(r.status, args[0]).toBe(2);
    }
    for (const out of ["runs", "compare", "transfer"]) expect(existsSync(join(dir, out)), out).toBe(false);
  });
});

describe("hexa workers with a stray entry in hexa:workers", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.kill();
  });

  it("lists the workers that beat and names each entry that is not a beat", async () => {
    const now = Date.now();
    const beat = {
      name: "w-good",
      host: "h",
      pid: 4242,
      queues: ["episodes"],
      concurrency: 2,
      startedAt: now,
      at: now,
      completed: 7,
      failed: 1,
      lastMinute: 3,
      active: [],
    };
    const r = new Redis(redis.url);
    await r.hset("hexa:workers", { "w-good": JSON.stringify(beat), "hand-written": "not json at all", "old-format": JSON.stringify({ name: "old-format" }) });
    r.disconnect();

    const out = await hexa(["workers", "--redis", redis.url]);
    expect(out.status, out.stderr).toBe(0);
    const rows = out.stdout.split("\n").filter((l) => l.startsWith("w-good"));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.trim().split(/\s+/).slice(0, 7)).toEqual(["w-good", "up", "episodes", "2", "0", "7", "1"]);
    expect(out.stderr.split("\n").filter(Boolean).sort()).toEqual([
      'hexa workers: skipped entry "hand-written" of hexa:workers: not a worker beat (not JSON)',
      'hexa workers: skipped entry "old-format" of hexa:workers: not a worker beat (host: Invalid input: expected string, received undefined)',
    ]);
  });
});
