import { execa, type ResultPromise } from "execa";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, resolve } from "node:path";
import { ConfigError } from "../errors.ts";
import { withRetries } from "../util/retry.ts";

/** A Chroma server hexa can talk to: one it started, or the user's at CHROMA_URL (then stop does nothing). */
export interface ChromaHandle {
  readonly url: string;
  stop(): Promise<void>;
}

/** The embedded server, supervised: restarted on the same port and data dir when it dies unexpectedly. */
export interface EmbeddedChroma extends ChromaHandle {
  /** pid of the current child; changes after a restart. */
  readonly pid: number;
  /** Restarts so far. */
  readonly restarts: number;
  /** Resolves once the server answers again after an unexpected exit (immediately when healthy). */
  ready(): Promise<void>;
}

export interface StartChromaOptions {
  dataDir: string;
  port?: number;
  /** How long one start may take to answer the heartbeat; the Rust server usually needs under 2 s. */
  healthTimeoutMs?: number;
  /** Unexpected exits tolerated before giving up; more means a crash loop worth a human's look. */
  maxRestarts?: number;
}

// chromadb's package exports only its library entries; the CLI sits beside them in dist/.
const cliPath = (): string => resolve(dirname(createRequire(import.meta.url).resolve("chromadb")), "..", "cli.mjs");

/** Binds 127.0.0.1:port (0: any) and releases it; resolves the port, or null when it is taken. */
const tryBind = (port: number): Promise<number | null> =>
  new Promise((ok, fail) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", (err: NodeJS.ErrnoException) => (err.code === "EADDRINUSE" ? ok(null) : fail(err)));
    srv.listen(port, "127.0.0.1", () => {
      const addr = srv.address();
      const got = typeof addr === "object" && addr ? addr.port : null;
      srv.close(() => ok(got));
    });
  });

/** Asks the OS for a free port; a race with another process is possible but rare, and the start then fails loudly. */
export const freePort = async (): Promise<number> => (await tryBind(0))!;

/** True when GET {url}/api/v2/heartbeat answers 200 within timeoutMs. */
export const heartbeat = async (url: string, timeoutMs = 2000): Promise<boolean> => {
  try {
    const res = await fetch(`${url}/api/v2/heartbeat`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The embedded servers this process supervises, by URL: a client of one waits out its restart before retrying. */
const supervised = new Map<string, () => Promise<void>>();

/** Resolves once the embedded server at url answers again (rejects when its restarts failed); undefined when hexa did not start one there. */
export const supervisedReady = (url: string): (() => Promise<void>) | undefined => supervised.get(url.replace(/\/+$/, ""));

interface Child {
  proc: ResultPromise;
  exited: Promise<number | null>;
  stderrTail: string[];
}

const spawnChild = (args: string[]): Child => {
  // The supervisor below owns the child's life: its exit is read from `exited` (reject: false), its output is
  // drained here (buffer: false), and it is stopped with SIGINT by stopChild and at exit (cleanup: false, so
  // execa's own signal handling never kills Chroma while a Ctrl-C'd run is still writing to it).
  const proc = execa(process.execPath, args, {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    buffer: false,
    reject: false,
    cleanup: false,
    forceKillAfterDelay: false,
  });
  const stderrTail: string[] = [];
  // Drain stdout (the banner) so a full pipe never blocks the server; keep the last stderr lines for errors.
  proc.stdout?.resume();
  let partial = "";
  proc.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? "";
    // Rust backtrace frames would push the panic message itself out of the tail.
    stderrTail.push(...lines.filter((l) => l.trim() && !/^\s+(\d+: |at )/.test(l)));
    stderrTail.splice(0, Math.max(0, stderrTail.length - 20));
  });
  proc.stderr?.on("end", () => partial.trim() && stderrTail.push(partial));
  const exited = new Promise<number | null>((r) => proc.once("exit", (code, signal) => r(code ?? (signal ? -1 : null))));
  proc.once("error", (err) => stderrTail.push(String(err)));
  return { proc, exited, stderrTail };
};

const waitHealthy = async (child: Child, url: string, command: string, timeoutMs: number): Promise<void> => {
  let gone = false;
  void child.exited.then(() => (gone = true));
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (gone) break;
    if ((await heartbeat(url, 1000)) && !gone) return;
    await sleep(100);
  }
  if (!gone) child.proc.kill("SIGKILL");
  const why = gone ? `exited with code ${child.proc.exitCode ?? child.proc.signalCode}` : `no heartbeat within ${timeoutMs} ms`;
  throw new ConfigError(
    `chroma: embedded server did not start (got ${why}; command: ${command}); last stderr:\n${child.stderrTail.slice(-10).join("\n") || "(empty)"}\n` +
      `check the data dir and port, or set CHROMA_URL to a running Chroma server`,
  );
};

/** How the embedded server is started: its port, URL, command line and restart limits. */
interface ChromaLaunch {
  port: number;
  url: string;
  dataDir: string;
  args: string[];
  /** The command line, for errors. */
  command: string;
  timeoutMs: number;
  maxRestarts: number;
}

/** The supervisor's state: the current child, restarts so far, and what ready() waits for. */
interface Supervision {
  child: Child | undefined;
  restarts: number;
  stopping: boolean;
  ready: Promise<void>;
}

const NO_BACKOFF = { baseMs: 0, capMs: 0 };

/**
 * launch(): starts the server and waits for its heartbeat; an unexpected exit of that child launches it again,
 * up to `maxRestarts` times in all (`s.ready` waits for that), then gives up with a ConfigError.
 */
const supervisedLaunch = (l: ChromaLaunch, s: Supervision): (() => Promise<void>) => {
  const launch = async (): Promise<void> => {
    // Chroma binds 127.0.0.1; a server already on the port would answer our heartbeat and pass for ours.
    if ((await tryBind(l.port)) === null) {
      throw new ConfigError(`chroma: port ${l.port} is already in use (got ${l.url}); pick another port or set CHROMA_URL to the server there`);
    }
    if (s.stopping) return;
    const c = spawnChild(l.args);
    s.child = c;
    await waitHealthy(c, l.url, l.command, l.timeoutMs);
    void c.exited.then(() => {
      if (s.stopping || c !== s.child) return;
      s.ready = relaunch();
      s.ready.catch(() => {});
    });
  };

  const exhausted = (last: unknown) =>
    new ConfigError(
      `chroma: embedded server at ${l.url} exited and ${s.restarts} of ${l.maxRestarts} restarts failed (got ${String(last)}); check ${l.dataDir} or set CHROMA_URL`,
    );

  // The restarts left are one attempt and its retries, at once: a crash needs no backoff, only a new child.
  const relaunch = async (): Promise<void> => {
    if (s.stopping) return;
    if (s.restarts >= l.maxRestarts) throw exhausted("no attempt");
    const restart = async () => {
      if (s.stopping) return;
      s.restarts++;
      return launch();
    };
    await withRetries(restart, {
      maxRetries: l.maxRestarts - s.restarts - 1,
      classify: (e) => ({ retryable: !s.stopping, reason: String(e) }),
      giveUp: exhausted,
      backoff: NO_BACKOFF,
      sleep: async () => {},
    }).catch((e: unknown) => {
      if (!s.stopping) throw e;
    });
  };
  return launch;
};

/** Stops a child still running: SIGINT, then SIGKILL after 10 s. */
const stopChild = async (c: Child | undefined): Promise<void> => {
  if (!c || c.proc.exitCode !== null || c.proc.signalCode !== null) return;
  c.proc.kill("SIGINT");
  // Chroma exits promptly on SIGINT; SIGKILL only if it hangs, so tests never leave a server behind.
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<false>((r) => (timer = setTimeout(() => r(false), 10_000)));
  const done = await Promise.race([c.exited.then(() => true), hung]);
  clearTimeout(timer);
  if (!done) {
    c.proc.kill("SIGKILL");
    await c.exited;
  }
};

/** Starts `chroma run` as a child process, waits for its heartbeat, and keeps it alive until stop(). */
export const startChroma = async (opts: StartChromaOptions): Promise<EmbeddedChroma> => {
  const port = opts.port ?? (await freePort());
  const args = [cliPath(), "run", "--path", opts.dataDir, "--port", String(port)];
  const l: ChromaLaunch = {
    port,
    url: `http://127.0.0.1:${port}`,
    dataDir: opts.dataDir,
    args,
    command: `${process.execPath} ${args.join(" ")}`,
    timeoutMs: opts.healthTimeoutMs ?? 30_000,
    maxRestarts: opts.maxRestarts ?? 3,
  };
  const s: Supervision = { child: undefined, restarts: 0, stopping: false, ready: Promise.resolve() };
  const launch = supervisedLaunch(l, s);

  // A child left behind would hold the port and the data dir; SIGINT lets Chroma flush before exiting.
  const onExit = () => s.child?.proc.kill("SIGINT");
  process.once("exit", onExit);
  try {
    await launch();
  } catch (err) {
    process.removeListener("exit", onExit);
    throw err;
  }

  supervised.set(l.url, () => s.ready);
  return {
    url: l.url,
    get pid() {
      return s.child?.proc.pid ?? -1;
    },
    get restarts() {
      return s.restarts;
    },
    ready: () => s.ready,
    async stop() {
      if (s.stopping) return;
      s.stopping = true;
      supervised.delete(l.url);
      process.removeListener("exit", onExit);
      await stopChild(s.child);
    },
  };
};

/** Uses CHROMA_URL when set (it must answer), else starts the embedded server with its data under dataDir. */
export const ensureChroma = async (env: NodeJS.ProcessEnv, dataDir: string): Promise<ChromaHandle> => {
  const given = env.CHROMA_URL?.trim();
  if (!given) return startChroma({ dataDir });
  const url = given.replace(/\/+$/, "");
  if (!(await heartbeat(url, 3000))) {
    throw new ConfigError(
      `CHROMA_URL: no Chroma heartbeat at ${url}/api/v2/heartbeat (got ${given}); start that server or unset CHROMA_URL to let hexa start its own`,
    );
  }
  return { url, stop: async () => {} };
};
