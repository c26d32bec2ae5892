import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { ConfigError } from "../../errors.ts";
import { credentialsHidden } from "../../util/secret-fields.ts";

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
 * or in config.yaml (docs/security.md). Every message shows the URL as written with all before its last "@"
 * hidden, so a password is never printed, whatever characters it holds.
 */
export const parseRedisUrl = (url: string, where: string, password?: string): RedisConnection => {
  const shown = JSON.stringify(credentialsHidden(url));
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ConfigError(`${where}: not a Redis URL (got ${shown}); ${EXAMPLE}; percent-encode a password's / ? # (e.g. %2F)`);
  }
  if (u.protocol !== "redis:" && u.protocol !== "rediss:")
    throw new ConfigError(`${where}: only redis:// and rediss:// URLs are supported (got ${shown}); ${EXAMPLE}`);
  if (!u.hostname) throw new ConfigError(`${where}: the URL names no host (got ${shown}); ${EXAMPLE}`);
  // An "@" the parse did not take as the end of a user and password: a password's unencoded "/" cut the URL short.
  if (url.includes("@") && !u.username && !u.password)
    throw new ConfigError(`${where}: the URL's password holds a character that must be percent-encoded (got ${shown}); write / as %2F, ? as %3F, # as %23`);
  const db = u.pathname.replace(/^\//, "");
  if (db && !/^\d+$/.test(db)) throw new ConfigError(`${where}: the database is a number (got ${shown}); write redis://HOST:PORT/0`);
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

/** The URL without its password, for messages. */
export const redisLabel = (c: RedisConnection): string => `${c.tls ? "rediss" : "redis"}://${c.host}:${c.port}${c.db ? `/${c.db}` : ""}`;

/** An address of this machine's own: 127.0.0.0/8 or ::1 (an IPv4 loopback written as IPv6 too). */
const isLoopbackAddress = (address: string): boolean => /^(::ffff:)?127\.\d+\.\d+\.\d+$/i.test(address) || address === "::1";

/** How a host name is resolved (node:dns lookup, every address); tests pass their own. */
export type ResolveHost = (host: string) => Promise<string[]>;

const resolveHost: ResolveHost = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * The loopback address a Redis is reached at, when it is on this machine: every address its host resolves to is
 * 127.0.0.0/8 or ::1 (the address, not the name: `127.0.0.1.example` may resolve anywhere); undefined otherwise,
 * or when the name does not resolve. A caller that connects without a job key connects to this address, so the
 * name cannot resolve elsewhere later.
 */
export const loopbackAddress = async (c: RedisConnection, resolve: ResolveHost = resolveHost): Promise<string | undefined> => {
  let addresses: string[];
  try {
    addresses = isIP(c.host) ? [c.host] : await resolve(c.host);
  } catch {
    return undefined;
  }
  return addresses.length > 0 && addresses.every(isLoopbackAddress) ? addresses[0] : undefined;
};

/** `p`, or a ConfigError with `message()` when it has not settled within `ms` (Redis that does not answer). */
export const withTimeout = <T>(p: Promise<T>, ms: number, message: () => string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<T>((_, fail) => (timer = setTimeout(() => fail(new ConfigError(message())), ms)))]).finally(() => clearTimeout(timer));
};
