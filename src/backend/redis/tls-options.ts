import { readFileSync } from "node:fs";
import { ConfigError } from "../../errors.ts";
import { redisLabel, type RedisConnection } from "./connection.ts";

/**
 * TLS to Redis (docs/security.md, "Running Redis"): a `rediss://` URL checks the server's certificate against the
 * system's CAs, or against the CA in HEXA_REDIS_TLS_CA (a private CA's PEM file); a server that asks for client
 * certificates (redis-server --tls-auth-clients, its default) gets HEXA_REDIS_TLS_CERT and HEXA_REDIS_TLS_KEY.
 * A worker may name the same files in worker.yaml `tls:` instead.
 */
export interface RedisTlsFiles {
  ca?: string;
  cert?: string;
  key?: string;
}

const ENV = { ca: "HEXA_REDIS_TLS_CA", cert: "HEXA_REDIS_TLS_CERT", key: "HEXA_REDIS_TLS_KEY" } as const;

/** The TLS files named by worker.yaml `tls:` (`own`, which wins, with `where` naming it) or the environment, each with where it was named. */
export const redisTlsFiles = (env: NodeJS.ProcessEnv, own: RedisTlsFiles = {}, where = "worker.yaml tls"): Array<[keyof RedisTlsFiles, string, string]> =>
  (["ca", "cert", "key"] as const).flatMap((k): Array<[keyof RedisTlsFiles, string, string]> => {
    if (own[k]) return [[k, own[k], `${where}.${k}`]];
    const v = env[ENV[k]];
    return v ? [[k, v, ENV[k]]] : [];
  });

/** `c` with the named files' contents in its TLS options; a ConfigError naming the variable or key and the file otherwise. */
export const withTlsFiles = (c: RedisConnection, files: ReadonlyArray<[keyof RedisTlsFiles, string, string]>, where: string): RedisConnection => {
  if (!files.length) return c;
  if (!c.tls) throw new ConfigError(`${where}: ${files.map((f) => f[2]).join(", ")} name TLS files, but ${redisLabel(c)} is not TLS; write rediss://HOST:PORT`);
  const named = new Set(files.map((f) => f[0]));
  if (named.has("cert") !== named.has("key"))
    throw new ConfigError(`${where}: a client certificate needs its key: set both ${ENV.cert} and ${ENV.key} (or worker.yaml tls.cert and tls.key)`);
  const read = Object.fromEntries(
    files.map(([k, path, by]) => {
      try {
        return [k, readFileSync(path, "utf8")];
      } catch (e) {
        throw new ConfigError(`${by}: cannot read ${JSON.stringify(path)} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); name a PEM file`);
      }
    }),
  );
  return { ...c, tls: { ...c.tls, ...read } };
};

/** Errors of the TLS handshake (OpenSSL's and Node's codes), told apart from a Redis that is down. */
const isTlsError = (e: NodeJS.ErrnoException): boolean =>
  /^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_|HOSTNAME_MISMATCH)/.test(e.code ?? "") || /certificate|ssl|tls|handshake/i.test(e.message);

/** A server asking for a client certificate may, under TLS 1.3, just close the connection after the handshake. */
const closedAfterHandshake = (e: NodeJS.ErrnoException): boolean => ["ECONNRESET", "EPIPE"].includes(e.code ?? "") || /connection is closed/i.test(e.message);

/**
 * For a `rediss://` connection: a connection attempt, and a ConfigError naming the TLS failure's cause (an
 * unknown CA, a name mismatch, a missing client certificate) rather than waiting until "Redis does not answer".
 * Other failures are left to the caller's own wait.
 */
export const checkRedisTls = async (c: RedisConnection, where: string, ms = 5000): Promise<void> => {
  if (!c.tls) return;
  const { Redis } = await import("ioredis");
  // Under TLS 1.3 a refused client certificate shows first as a reset and only on a later attempt as the server's
  // alert: a few attempts are made, and a TLS error among them is the cause.
  const failures: NodeJS.ErrnoException[] = [];
  for (let attempt = 0; attempt < 3 && !failures.some(isTlsError); attempt++) {
    const client = new Redis({ ...c, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, connectTimeout: ms });
    client.on("error", (e: NodeJS.ErrnoException) => failures.push(e));
    try {
      await client.connect();
      await client.ping();
      return;
    } catch (e) {
      failures.push(e as NodeJS.ErrnoException);
    } finally {
      client.disconnect();
    }
  }
  // Every attempt closed by the server (never refused, never timed out): the handshake is what failed.
  const failure = failures.find(isTlsError) ?? (failures.length > 0 && failures.every(closedAfterHandshake) ? failures[0] : undefined);
  if (failure) {
    const fix = c.tls.ca
      ? "check that HEXA_REDIS_TLS_CA is the CA that signed the server's certificate, for this host name, and that a server asking for client certificates gets HEXA_REDIS_TLS_CERT and HEXA_REDIS_TLS_KEY"
      : "a server certificate from a private CA needs HEXA_REDIS_TLS_CA=ca.pem (worker.yaml tls.ca); one asking for client certificates needs HEXA_REDIS_TLS_CERT and HEXA_REDIS_TLS_KEY";
    throw new ConfigError(`${where} ${redisLabel(c)}: TLS failed (${failure.code ? `${failure.code}: ` : ""}${failure.message.trim()}); ${fix}`);
  }
};
