import { readFileSync } from "node:fs";
import { loopbackAddress, redisLabel, type RedisConnection, type ResolveHost } from "../backend/redis/connection.ts";
import { MIN_JOB_KEY_LENGTH } from "../backend/redis/job-signature.ts";
import { ConfigError } from "../errors.ts";

/**
 * The key jobs are signed with (docs/security.md): the file given (--job-key-file, worker.yaml jobKeyFile,
 * HEXA_JOB_KEY_FILE), else HEXA_JOB_KEY; undefined when none is set.
 */
export const readJobKey = (env: NodeJS.ProcessEnv, file?: { path: string; where: string }): string | undefined => {
  const path = file ?? (env.HEXA_JOB_KEY_FILE ? { path: env.HEXA_JOB_KEY_FILE, where: "HEXA_JOB_KEY_FILE" } : undefined);
  let key: string | undefined;
  let where = "HEXA_JOB_KEY";
  if (path) {
    where = `${path.where} ${path.path}`;
    try {
      key = readFileSync(path.path, "utf8").trim();
    } catch (e) {
      throw new ConfigError(`${where}: cannot read the job key (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); give a file holding the key`);
    }
  } else key = env.HEXA_JOB_KEY?.trim() || undefined;
  if (key !== undefined && key.length < MIN_JOB_KEY_LENGTH)
    throw new ConfigError(`${where}: the job key is too short (got ${key.length} characters, need ${MIN_JOB_KEY_LENGTH}); make one with: openssl rand -hex 32`);
  return key;
};

/**
 * Without a job key, anyone who can write to Redis can queue jobs: allowed only for a Redis on this machine, by
 * the address its host resolves to (127.0.0.0/8, ::1), with a warning; a Redis elsewhere, or a name that does not
 * resolve to loopback, is refused before anything starts. Returns the connection to use: without a key, pinned to
 * the loopback address checked, so that the name cannot resolve elsewhere later. `who` names the flag or key.
 */
export const checkJobKeyFor = async (
  connection: RedisConnection,
  key: string | undefined,
  who: string,
  warn: (line: string) => void,
  resolve?: ResolveHost,
): Promise<RedisConnection> => {
  if (key) return connection;
  const where = redisLabel(connection);
  const address = await loopbackAddress(connection, resolve);
  if (address === undefined)
    throw new ConfigError(
      `${who} ${where}: no job key is set, and this Redis is not on this machine (its host does not resolve to 127.0.0.0/8 or ::1 only): anyone who reaches it could queue jobs; set HEXA_JOB_KEY (the same on the coordinator and every worker; make one with: openssl rand -hex 32) — see docs/security.md`,
    );
  warn(
    `warning: no job key (HEXA_JOB_KEY): jobs on ${where} are not signed, so any process on this machine that reaches Redis can queue them; set HEXA_JOB_KEY on the coordinator and every worker (docs/security.md)`,
  );
  return { ...connection, host: address };
};
