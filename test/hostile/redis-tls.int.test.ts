import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hexa, spawnHexa } from "../support/hexa-cli.ts";
import { REDIS_SERVER } from "../support/redis-server.ts";

/**
 * `rediss://` with a private CA (docs/security.md, "Running Redis"): a Redis started with a certificate from the
 * user's own CA and asking for client certificates (redis-server's default with --tls-ca-cert-file). Without the
 * CA a worker says why TLS failed at once; with HEXA_REDIS_TLS_CA / _CERT / _KEY it connects.
 */

const KEY = "test-job-key-0123456789abcdef";
let tmp: string;
let port: number;
let redis: ChildProcess;

const openssl = (...args: string[]) => execa("openssl", args, { cwd: tmp });

/** A CA, a server certificate for 127.0.0.1 and a client certificate, all signed by the CA. */
const makeCertificates = async () => {
  await openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=hexa test CA");
  writeFileSync(join(tmp, "san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  for (const who of ["server", "client"]) {
    await openssl(
      "req",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      `${who}.key`,
      "-out",
      `${who}.csr`,
      "-subj",
      `/CN=${who === "server" ? "127.0.0.1" : "hexa worker"}`,
    );
    await openssl(
      "x509",
      "-req",
      "-in",
      `${who}.csr`,
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      `${who}.pem`,
      "-days",
      "2",
      ...(who === "server" ? ["-extfile", "san.ext"] : []),
    );
  }
};

const freePort = (): Promise<number> =>
  new Promise((ok) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => ok(p));
    });
  });

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "hexa-hostile-tls-"));
  await makeCertificates();
  port = await freePort();
  const f = (n: string) => join(tmp, n);
  redis = spawn(
    REDIS_SERVER,
    [
      "--port",
      "0",
      "--tls-port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--tls-cert-file",
      f("server.pem"),
      "--tls-key-file",
      f("server.key"),
      "--tls-ca-cert-file",
      f("ca.pem"),
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`redis-server with TLS did not start: ${out}`)), 10_000);
    redis.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      if (out.includes("Ready to accept connections")) {
        clearTimeout(timer);
        ok();
      }
    });
    redis.once("exit", () => fail(new Error(`redis-server with TLS exited: ${out}`)));
  });
});
afterAll(() => {
  redis?.kill("SIGKILL");
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** `hexa worker` on the TLS Redis with `env`: its stderr once it is up or has exited, and whether it is up. */
const worker = async (env: Record<string, string>) => {
  let err = "";
  const p = spawnHexa(["worker", "--redis", `rediss://127.0.0.1:${port}`, "--runs-dir", join(tmp, "runs")], {
    env: { HEXA_JOB_KEY: KEY, ...env },
    onStderr: (s) => (err = s),
  });
  const t0 = Date.now();
  while (!err.includes(" at once per queue") && p.child.exitCode === null && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 50));
  const up = p.child.exitCode === null;
  p.child.kill("SIGKILL");
  return { up, err, status: up ? null : p.child.exitCode };
};

describe("rediss:// with a private CA", () => {
  it("without the CA, the worker stops at once naming the TLS failure and HEXA_REDIS_TLS_CA, not 'does not answer'", async () => {
    const r = await worker({});
    expect(r.up).toBe(false);
    expect(r.status).toBe(2);
    expect(r.err).toMatch(/--redis rediss:\/\/127\.0\.0\.1:\d+: TLS failed \(.*certificate.*\); .*HEXA_REDIS_TLS_CA/);
    expect(r.err).not.toMatch(/does not answer/);
  });

  it("with the CA but no client certificate, the TLS failure is named", async () => {
    const r = await worker({ HEXA_REDIS_TLS_CA: join(tmp, "ca.pem") });
    expect(r.up).toBe(false);
    expect(r.err).toMatch(/TLS failed .*HEXA_REDIS_TLS_CERT and HEXA_REDIS_TLS_KEY/);
  });

  it("with HEXA_REDIS_TLS_CA, _CERT and _KEY, the worker connects and serves", async () => {
    const r = await worker({
      HEXA_REDIS_TLS_CA: join(tmp, "ca.pem"),
      HEXA_REDIS_TLS_CERT: join(tmp, "client.pem"),
      HEXA_REDIS_TLS_KEY: join(tmp, "client.key"),
    });
    expect(r.err).toContain(" at once per queue");
    expect(r.up).toBe(true);
  });

  it("hexa run --backend rediss:// reads the same variables: without the CA it stops before writing, naming the TLS failure", async () => {
    const config = join(tmp, "run.yaml");
    writeFileSync(config, "levels: [catapult]\nagent: heuristic\nevolver: heuristic\nrounds: 1\nepisodesPerRound: 1\n");
    const runs = join(tmp, "coordinator-runs");
    const r = await hexa(["run", config, "--backend", `rediss://127.0.0.1:${port}`, "--runs-dir", runs], { env: { HEXA_JOB_KEY: KEY } });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--backend rediss:\/\/127\.0\.0\.1:\d+: TLS failed .*HEXA_REDIS_TLS_CA/);
    const bad = await hexa(["run", config, "--backend", `rediss://127.0.0.1:${port}`, "--runs-dir", runs], {
      env: { HEXA_JOB_KEY: KEY, HEXA_REDIS_TLS_CA: join(tmp, "ca.pem"), HEXA_REDIS_TLS_CERT: join(tmp, "client.pem") },
    });
    expect(bad.stderr).toMatch(/a client certificate needs its key: set both HEXA_REDIS_TLS_CERT and HEXA_REDIS_TLS_KEY/);
    expect(existsSync(runs)).toBe(false);
  });
});
