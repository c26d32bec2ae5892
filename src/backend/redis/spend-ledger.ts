import { Redis } from "ioredis";
import type { Cap, Cost, Outputs, Refusal, Spend, SpendLedger } from "../../llm/spend-ledger.ts";
import type { RedisConnection } from "./connection.ts";

/** The hash a run's gates count in: the cap, the spend (answered calls plus the estimates of calls in flight), output sizes per role. */
const ledgerKey = (run: string): string => `hexa:spend:${run}`;

/** A ledger outlives a day-long pause between a stop and its resume; the coordinator writes it anew at every start. */
const TTL_S = 7 * 24 * 3600;

const RESERVE = `
local h = redis.call('HMGET', KEYS[1], 'init', 'usd', 'tokens', 'calls', 'capUsd', 'capTokens', 'stopped')
if h[1] ~= '1' then return {'lost'} end
local state = {h[2], h[3], h[4], h[5] or '', h[6] or ''}
if h[7] then table.insert(state, 1, 'earlier') return state end
local capUsd, capTokens = tonumber(h[5] or ''), tonumber(h[6] or '')
if (capUsd and tonumber(h[2]) + tonumber(ARGV[1]) > capUsd) or (capTokens and tonumber(h[3]) + tonumber(ARGV[2]) > capTokens) then
  redis.call('HSET', KEYS[1], 'stopped', '1')
  table.insert(state, 1, 'over')
  return state
end
redis.call('HINCRBYFLOAT', KEYS[1], 'usd', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'tokens', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return {'ok'}
`;

/** ARGV: usd and token deltas, answered calls (0 or 1), the role ('' for none), its output tokens. A lost ledger is not recreated. */
const SETTLE = `
if redis.call('HGET', KEYS[1], 'init') ~= '1' then return 0 end
redis.call('HINCRBYFLOAT', KEYS[1], 'usd', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'tokens', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'calls', ARGV[3])
if ARGV[4] ~= '' then
  redis.call('HINCRBY', KEYS[1], 'out:' .. ARGV[4] .. ':sum', ARGV[5])
  redis.call('HINCRBY', KEYS[1], 'out:' .. ARGV[4] .. ':n', 1)
end
return 1
`;

export interface RedisLedger extends SpendLedger {
  /** The coordinator's ledger writes the hash anew only now (once it holds the run's lock); its other commands wait for it. */
  begin(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The spend ledger shared by every process of a run played by workers (docs/ARCHITECTURE.md §7, docs/spec/method.md §11): the coordinator's
 * gate and each worker's reserve from the same hash, atomically (a Lua script), so all of them together cross
 * the cap only by how far the calls in flight outrun their estimates. With `start` (the coordinator, at a run's start or
 * resume) `begin` writes the hash anew from the run's recorded spend and the cap given now; a worker's ledger
 * only reads and adds. A refusal is kept in the hash: every later call of the run, on any process, is refused too.
 */
export const openRedisLedger = (connection: RedisConnection, run: string, start?: { cap: Cap; spent: Spend }): RedisLedger => {
  const redis = new Redis(connection);
  redis.on("error", () => undefined); // ioredis reconnects; a command waits for it (maxRetriesPerRequest: null)
  const key = ledgerKey(run);
  const fields = (cap: Cap, spent: Spend): Record<string, string> => ({
    init: "1",
    usd: String(spent.usd),
    tokens: String(spent.tokens),
    calls: String(spent.calls),
    ...(cap.usd !== undefined ? { capUsd: String(cap.usd) } : {}),
    ...(cap.tokens !== undefined ? { capTokens: String(cap.tokens) } : {}),
  });
  let begin: () => void = () => {};
  let begun = !start;
  let ready: Promise<unknown> = start
    ? new Promise<void>((go) => (begin = go)).then(() => redis.multi().del(key).hset(key, fields(start.cap, start.spent)).expire(key, TTL_S).exec())
    : Promise.resolve();
  const after = async <T>(work: () => Promise<T>): Promise<T> => {
    await ready;
    return work();
  };
  const spendOf = (h: readonly (string | null)[]): Spend => ({ usd: Number(h[0] ?? 0), tokens: Number(h[1] ?? 0), calls: Number(h[2] ?? 0) });
  const capOf = (usd: string, tokens: string): Cap => ({ ...(usd ? { usd: Number(usd) } : {}), ...(tokens ? { tokens: Number(tokens) } : {}) });
  return {
    outputs: (where) =>
      after(async (): Promise<Outputs | undefined> => {
        const [sum, n] = await redis.hmget(key, `out:${where}:sum`, `out:${where}:n`);
        return n ? { sum: Number(sum ?? 0), n: Number(n) } : undefined;
      }),
    learn: (where, outputs) => {
      if (!outputs.length) return;
      const sum = outputs.reduce((a, b) => a + b, 0);
      ready = ready.then(() => redis.multi().hincrby(key, `out:${where}:sum`, sum).hincrby(key, `out:${where}:n`, outputs.length).exec());
    },
    reserve: (_where, next) =>
      after(async (): Promise<Refusal | undefined> => {
        const r = (await redis.eval(RESERVE, 1, key, String(next.usd), String(next.tokens), String(TTL_S))) as string[];
        if (r[0] === "ok") return undefined;
        if (r[0] === "lost") return { why: "lost", spent: { usd: 0, tokens: 0, calls: 0 }, cap: {}, held: true };
        return { why: r[0] as "over" | "earlier", spent: spendOf(r.slice(1, 4)), cap: capOf(r[4]!, r[5]!), held: true };
      }),
    settle: (where, reserved, actual) =>
      after(async () => {
        await redis.eval(SETTLE, 1, key, String(actual.usd - reserved.usd), String(actual.tokens - reserved.tokens), "1", where, String(actual.output));
      }),
    release: (reserved: Cost) =>
      after(async () => {
        await redis.eval(SETTLE, 1, key, String(-reserved.usd), String(-reserved.tokens), "0", "", "0");
      }),
    total: () => after(async () => spendOf(await redis.hmget(key, "usd", "tokens", "calls"))),
    begin: async () => {
      begun = true;
      begin();
      await ready;
    },
    close: async () => {
      // Never begun: the hash is left as it was (another coordinator may hold the run).
      if (begun) await ready.catch(() => undefined);
      redis.disconnect();
    },
  };
};
