import { isIP } from "node:net";
import { ConfigError } from "../../errors.ts";

/** What BullMQ and ioredis are given: `maxRetriesPerRequest: null` makes a command wait out a Redis restart instead of failing. */
export interface RedisConnection {
  host: string;
  port: number;
  db?: number;
  username?: string;
  password?: string;
  /** rediss://: TLS, the server's certificate checked against the system's CAs (or `ca`) for `host`; `cert` and `key`: a client certificate (tls-options.ts). */
  tls?: { servername?: string; ca?: string; cert?: string; key?: string };
  maxRetriesPerRequest: null;
}

const EXAMPLE = "write redis://HOST:PORT, e.g. redis://127.0.0.1:6379, or rediss://:PASSWORD@HOST:PORT for TLS";

/**
 * `redis[s]://[[user]:password@]HOST[:PORT][/DB]` → connection options; `where` names the flag or key in errors.
 * `password` (HEXA_REDIS_PASSWORD) is used when the URL names none, so it need not appear on a command line
 * or in config.yaml (docs/security.md).
 */
export const parseRedisUrl = (url: string, where: string, password?: string): RedisConnection => {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ConfigError(`${where}: not a Redis URL (got ${JSON.stringify(url.replace(/:[^:@/]*@/, ":***@"))}); ${EXAMPLE}`);
  }
  const shown = JSON.stringify(redactedUrl(u));
  if (u.protocol !== "redis:" && u.protocol !== "rediss:")
    throw new ConfigError(`${where}: only redis:// and rediss:// URLs are supported (got ${shown}); ${EXAMPLE}`);
  if (!u.hostname) throw new ConfigError(`${where}: the URL names no host (got ${shown}); ${EXAMPLE}`);
  const db = u.pathname.replace(/^\//, "");
  if (db && !/^\d+$/.test(db)) throw new ConfigError(`${where}: the database is a number (got ${JSON.stringify(db)}); write redis://HOST:PORT/0`);
  const host = u.hostname.replace(/^\[|\]$/g, "");
  const pw = u.password ? decodeURIComponent(u.password) : password;
  return {
    host,
    port: u.port ? Number(u.port) : 6379,
    ...(db ? { db: Number(db) } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(pw ? { password: pw } : {}),
    // An IP address is no server name (RFC 6066): Node checks the certificate against the address itself.
    ...(u.protocol === "rediss:" ? { tls: isIP(host) ? {} : { servername: host } } : {}),
    maxRetriesPerRequest: null,
  };
};

const redactedUrl = (u: URL): string => (u.password ? u.href.replace(`:${u.password}@`, ":***@") : u.href);

/** The URL without its password, for messages. */
export const redisLabel = (c: RedisConnection): string => `${c.tls ? "rediss" : "redis"}://${c.host}:${c.port}${c.db ? `/${c.db}` : ""}`;

/** A Redis on this machine (localhost, 127.0.0.0/8, ::1): only its own users can reach it. */
export const isLoopbackRedis = (c: RedisConnection): boolean => c.host === "localhost" || c.host === "::1" || /^127\./.test(c.host);

/** `p`, or a ConfigError with `message()` when it has not settled within `ms` (Redis that does not answer). */
export const withTimeout = <T>(p: Promise<T>, ms: number, message: () => string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<T>((_, fail) => (timer = setTimeout(() => fail(new ConfigError(message())), ms)))]).finally(() => clearTimeout(timer));
};
