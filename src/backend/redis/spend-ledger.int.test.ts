import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type RedisServer } from "../../../test/support/redis-server.ts";
import type { RedisConnection } from "./connection.ts";
import { openRedisLedger } from "./spend-ledger.ts";

/** The shared ledger on a real redis-server: what several processes' gates see when they count in it at once. */

let redis: RedisServer;
let connection: RedisConnection;
const opened: Array<{ close(): Promise<void> }> = [];
beforeAll(async () => {
  redis = await startRedis();
  connection = { host: "127.0.0.1", port: redis.port, maxRetriesPerRequest: null };
});
afterAll(async () => {
  await Promise.all(opened.map((l) => l.close()));
  await redis?.kill();
});
const coordinator = (run: string, cap: { usd?: number; tokens?: number }, spent = { usd: 0, tokens: 0, calls: 0 }) => {
  const l = openRedisLedger(connection, run, { cap, spent });
  opened.push(l);
  return l;
};
const worker = (run: string) => {
  const l = openRedisLedger(connection, run);
  opened.push(l);
  return l;
};
const call = { usd: 0, tokens: 1000 };

describe("openRedisLedger", () => {
  it("lets reservations from many processes at once through only while their sum fits the cap", async () => {
    const c = coordinator("r1", { tokens: 10_000 }, { usd: 0, tokens: 2_500, calls: 1 });
    await c.begin();
    const workers = Array.from({ length: 4 }, () => worker("r1"));
    const refusals = await Promise.all(Array.from({ length: 20 }, (_, i) => workers[i % 4]!.reserve("llm.actor", call)));
    // 2,500 recorded + 7 × 1,000 held fit under 10,000; the 8th would cross it.
    expect(refusals.filter((r) => r === undefined)).toHaveLength(7);
    // One is refused for crossing it; every later one because that one was.
    expect(refusals.filter((r) => r?.why === "over")).toMatchObject([{ cap: { tokens: 10_000 }, held: true }]);
    expect(refusals.filter((r) => r?.why === "earlier")).toHaveLength(12);
    expect(await c.total()).toEqual({ usd: 0, tokens: 9_500, calls: 1 });
  });

  it("replaces an estimate by the bill, gives back a call that got no answer, and shares output sizes", async () => {
    const c = coordinator("r2", { usd: 1 });
    c.learn("llm.actor", [300, 500]);
    await c.begin();
    const w = worker("r2");
    expect(await w.outputs("llm.actor")).toEqual({ sum: 800, n: 2 });
    expect(await w.reserve("llm.actor", { usd: 0.4, tokens: 10 })).toBeUndefined();
    await w.settle("llm.actor", { usd: 0.4, tokens: 10 }, { usd: 0.1, tokens: 40, output: 30 });
    expect(await w.reserve("llm.actor", { usd: 0.5, tokens: 10 })).toBeUndefined();
    await w.release({ usd: 0.5, tokens: 10 });
    const t = await c.total();
    expect(t.usd).toBeCloseTo(0.1, 10);
    expect(t).toMatchObject({ tokens: 40, calls: 1 });
    expect(await c.outputs("llm.actor")).toEqual({ sum: 830, n: 3 });
  });

  it("refuses every later call once one is refused, until the coordinator begins the run again (a resume with a raised cap)", async () => {
    const first = coordinator("r3", { tokens: 1_500 });
    await first.begin();
    const w = worker("r3");
    expect(await w.reserve("llm.actor", call)).toBeUndefined();
    expect(await w.reserve("llm.actor", call)).toMatchObject({ why: "over" });
    expect(await w.reserve("llm.actor", { usd: 0, tokens: 1 })).toMatchObject({ why: "earlier", spent: { tokens: 1_000 } });
    const resumed = coordinator("r3", { tokens: 5_000 }, { usd: 0, tokens: 1_000, calls: 1 });
    await resumed.begin();
    expect(await w.reserve("llm.actor", call)).toBeUndefined();
  });

  it("a coordinator that never begins leaves the ledger alone; a ledger Redis lost refuses", async () => {
    const held = coordinator("r4", { tokens: 5_000 });
    await held.begin();
    expect(await worker("r4").reserve("llm.actor", call)).toBeUndefined();
    await coordinator("r4", { tokens: 1 }).close();
    expect(await held.total()).toMatchObject({ tokens: 1_000 });
    expect(await worker("never-started").reserve("llm.actor", call)).toMatchObject({ why: "lost" });
  });
});
