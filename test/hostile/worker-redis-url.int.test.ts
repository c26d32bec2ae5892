import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hexa } from "../support/hexa-cli.ts";
import { hexaVersion, startHostileWorker, type HostileWorker } from "../support/hostile-worker.ts";
import { startRedis, type RedisServer } from "../support/redis-server.ts";

/**
 * How a worker and a coordinator take a Redis URL and a job (docs/security.md, "The job key"): without a key only
 * a Redis whose host resolves to this machine's loopback addresses is allowed (the address, not how the name
 * starts); a password is never printed, whatever characters it holds; a job larger than 8 MB is refused from its
 * size before it is parsed.
 */

const KEY = "test-job-key-0123456789abcdef";
const PASSWORD = "pa/ss#w?rd";
const NO_KEY = { HEXA_JOB_KEY: "", HEXA_JOB_KEY_FILE: "" };

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "hexa-hostile-url-"));
});
afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("a Redis URL", () => {
  it("without a job key: a name that starts with 127. but does not resolve to loopback is refused before connecting", async () => {
    // .invalid never resolves (RFC 6761); 127.0.0.1.nip.io-style names resolve wherever their owner chooses.
    const out = await hexa(["worker", "--redis", "redis://127.0.0.1.invalid:6379"], { env: NO_KEY });
    expect(out.status).not.toBe(0);
    expect(out.stderr).toMatch(/--redis redis:\/\/127\.0\.0\.1\.invalid:6379: no job key is set, and this Redis is not on this machine/);
  });

  it("a password with an unencoded / # ? is printed nowhere: --redis, worker.yaml redis, a config's backend", async () => {
    const url = `redis://:${PASSWORD}@10.0.0.5:6379`;
    const worker = await hexa(["worker", "--redis", url], { env: { HEXA_JOB_KEY: KEY } });
    const yaml = join(tmp, "worker.yaml");
    writeFileSync(yaml, `redis: "${url}"\n`);
    const fromYaml = await hexa(["worker", "--config", yaml], { env: { HEXA_JOB_KEY: KEY } });
    const typo = join(tmp, "worker-typo.yaml");
    writeFileSync(typo, `redis: "${url}"\nrunsDirr: /tmp\n`);
    const fromTypo = await hexa(["worker", "--config", typo], { env: { HEXA_JOB_KEY: KEY } });
    const config = join(tmp, "run.yaml");
    writeFileSync(config, `levels: [two_body_problem]\nagent: heuristic\nevolver: heuristic\nrounds: 1\nbackend: "${url}"\n`);
    const run = await hexa(["run", config, "--runs-dir", join(tmp, "runs")], { env: { HEXA_JOB_KEY: KEY } });
    for (const [what, out] of Object.entries({ worker, fromYaml, fromTypo, run })) {
      expect(out.status, what).not.toBe(0);
      expect(`${out.stdout}${out.stderr}`, what).not.toMatch(/pa\/ss|w\?rd/);
    }
    expect(worker.stderr).toMatch(/--redis: .*redis:\/\/\*\*\*@10\.0\.0\.5:6379/);
    expect(fromTypo.stderr).toMatch(/runsDirr/);
  });
});

describe("a job's size", () => {
  let redis: RedisServer;
  let worker: HostileWorker;
  beforeAll(async () => {
    redis = await startRedis();
    worker = await startHostileWorker(redis.port, ["--runs-dir", join(tmp, "runs")], KEY);
  });
  afterAll(async () => {
    await worker?.close();
    await redis?.kill();
  });

  it("a job over 8 MB is refused once from its size, before its data is read, signed or not", async () => {
    const big = { schemaVersion: 2, hexa: hexaVersion, run: "big", padding: "x".repeat(9 * 1024 * 1024) };
    for (const key of [KEY, null]) {
      const r = await worker.inject("episodes", big, { key });
      expect(r.error).toMatch(/the job's data is 9\.0 MB, over the 8 MB a job may be; refused before it was read/);
      expect(r.attempts).toBe(1);
    }
  });
});
