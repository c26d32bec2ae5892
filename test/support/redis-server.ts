import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";

/** Debian's redis-server; .ci/run installs it when it is missing. */
export const REDIS_SERVER = "/usr/bin/redis-server";

const freePort = (): Promise<number> =>
  new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => ok(port));
    });
  });

export interface RedisServer {
  url: string;
  port: number;
  /** kill -9 and wait for the exit (a restart on the same port then finds it free). */
  kill(): Promise<void>;
  /** A fresh, empty server on the same port (no persistence: what a restart of an in-memory Redis leaves). */
  restart(): Promise<void>;
}

const launch = (port: number, password?: string): Promise<ChildProcess> =>
  new Promise((ok, fail) => {
    const auth = password === undefined ? [] : ["--requirepass", password];
    const p = spawn(REDIS_SERVER, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "no", ...auth], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const timer = setTimeout(() => fail(new Error(`redis-server on ${port} did not start: ${out}`)), 10_000);
    p.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      if (out.includes("Ready to accept connections")) {
        clearTimeout(timer);
        ok(p);
      }
    });
    p.once("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`redis-server on ${port} exited ${code}: ${out}`));
    });
  });

/** A redis-server of the test's own on a free loopback port, with no persistence; with `password`, it refuses clients without it (--requirepass). */
export const startRedis = async (o: { password?: string } = {}): Promise<RedisServer> => {
  if (!existsSync(REDIS_SERVER)) throw new Error(`${REDIS_SERVER} is missing; install Debian's redis-server (apt-get install redis-server), as .ci/run does`);
  const port = await freePort();
  let proc = await launch(port, o.password);
  const kill = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    await new Promise<void>((ok) => {
      proc.once("exit", () => ok());
      proc.kill("SIGKILL");
    });
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    restart: async () => {
      await kill();
      proc = await launch(port, o.password);
    },
  };
};
