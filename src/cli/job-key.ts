import { readFileSync } from "node:fs";
import { isLoopbackRedis, redisLabel, type RedisConnection } from "../backend/redis/connection.ts";
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
 * Without a job key, anyone who can write to Redis can queue jobs: allowed only for a Redis on this machine (with
 * a warning); a Redis elsewhere is refused before anything starts. `who` is the flag that named the Redis.
 */
export const checkJobKeyFor = (connection: RedisConnection, key: string | undefined, who: string, warn: (line: string) => void): void => {
  if (key) return;
  const where = redisLabel(connection);
  if (!isLoopbackRedis(connection))
    throw new ConfigError(
      `${who} ${where}: no job key is set, and this Redis is not on this machine: anyone who reaches it could queue jobs; set HEXA_JOB_KEY (the same on the coordinator and every worker; make one with: openssl rand -hex 32) — see docs/security.md`,
    );
  warn(
    `warning: no job key (HEXA_JOB_KEY): jobs on ${where} are not signed, so any process on this machine that reaches Redis can queue them; set HEXA_JOB_KEY on the coordinator and every worker (docs/security.md)`,
  );
};
