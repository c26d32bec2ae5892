import { ConfigError } from "../../errors.ts";

/** What BullMQ and ioredis are given: `maxRetriesPerRequest: null` makes a command wait out a Redis restart instead of failing. */
export interface RedisConnection {
  host: string;
  port: number;
  db?: number;
  username?: string;
  password?: string;
  maxRetriesPerRequest: null;
}

/** `redis://[user:password@]HOST[:PORT][/DB]` → connection options; `where` names the flag or key in errors. */
export const parseRedisUrl = (url: string, where: string): RedisConnection => {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ConfigError(`${where}: not a Redis URL (got ${JSON.stringify(url)}); write redis://HOST:PORT, e.g. redis://127.0.0.1:6379`);
  }
  if (u.protocol !== "redis:")
    throw new ConfigError(`${where}: only redis:// URLs are supported (got ${JSON.stringify(url)}); write redis://HOST:PORT, e.g. redis://127.0.0.1:6379`);
  if (!u.hostname) throw new ConfigError(`${where}: the URL names no host (got ${JSON.stringify(url)}); write redis://HOST:PORT`);
  const db = u.pathname.replace(/^\//, "");
  if (db && !/^\d+$/.test(db)) throw new ConfigError(`${where}: the database is a number (got ${JSON.stringify(db)}); write redis://HOST:PORT/0`);
  return {
    host: u.hostname.replace(/^\[|\]$/g, ""),
    port: u.port ? Number(u.port) : 6379,
    ...(db ? { db: Number(db) } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    maxRetriesPerRequest: null,
  };
};

/** The URL without its password, for messages. */
export const redisLabel = (c: RedisConnection): string => `redis://${c.host}:${c.port}${c.db ? `/${c.db}` : ""}`;

/** `p`, or a ConfigError with `message()` when it has not settled within `ms` (Redis that does not answer). */
export const withTimeout = <T>(p: Promise<T>, ms: number, message: () => string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<T>((_, fail) => (timer = setTimeout(() => fail(new ConfigError(message())), ms)))]).finally(() => clearTimeout(timer));
};
