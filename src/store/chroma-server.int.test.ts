import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../errors.ts";
import { ensureChroma, freePort, heartbeat, startChroma, type ChromaHandle } from "./chroma-server.ts";

const root = mkdtempSync(join(tmpdir(), "hexa-chroma-"));
const started: ChromaHandle[] = [];
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

// Every server a test starts is stopped here too, so a failing assertion never leaves one running.
afterAll(async () => {
  await Promise.all(started.map((h) => h.stop()));
  rmSync(root, { recursive: true, force: true });
});

describe("chroma server", () => {
  it("starts, answers the heartbeat, and is gone after stop", async () => {
    const chroma = await startChroma({ dataDir: join(root, "a") });
    started.push(chroma);
    expect(await heartbeat(chroma.url)).toBe(true);
    const pid = chroma.pid;
    expect(alive(pid)).toBe(true);
    await chroma.stop();
    expect(alive(pid)).toBe(false);
    expect(await heartbeat(chroma.url, 500)).toBe(false);
  });

  it("restarts on the same port after the child is killed", async () => {
    const chroma = await startChroma({ dataDir: join(root, "b"), maxRestarts: 2 });
    started.push(chroma);
    const first = chroma.pid;
    process.kill(first, "SIGKILL");
    await expect.poll(() => chroma.restarts, { timeout: 5000 }).toBe(1);
    await chroma.ready();
    expect(chroma.pid).not.toBe(first);
    expect(await heartbeat(chroma.url)).toBe(true);
    await chroma.stop();
    expect(alive(chroma.pid)).toBe(false);
  });

  it("gives up after maxRestarts with a ConfigError", async () => {
    const chroma = await startChroma({ dataDir: join(root, "b2"), maxRestarts: 1 });
    started.push(chroma);
    process.kill(chroma.pid, "SIGKILL");
    await expect.poll(() => chroma.restarts, { timeout: 5000 }).toBe(1);
    await chroma.ready();
    const second = chroma.pid;
    process.kill(second, "SIGKILL");
    const outcome = () =>
      chroma.ready().then(
        () => "healthy",
        (e: unknown) => String(e),
      );
    await expect.poll(outcome, { timeout: 5000 }).toMatch(/^ConfigError: .*1 of 1 restarts failed/);
    expect(await heartbeat(chroma.url, 500)).toBe(false);
  });

  it("spends every restart left on restarts that fail, then names the last failure", async () => {
    const dataDir = join(root, "gone", "sub");
    const chroma = await startChroma({ dataDir, maxRestarts: 2 });
    started.push(chroma);
    // The data dir's parent becomes a file: each new child fails, as in a crash loop.
    rmSync(join(root, "gone"), { recursive: true, force: true });
    writeFileSync(join(root, "gone"), "");
    process.kill(chroma.pid, "SIGKILL");
    const outcome = () =>
      chroma.ready().then(
        () => "healthy",
        (e: unknown) => String(e),
      );
    await expect
      .poll(outcome, { timeout: 60_000 })
      .toMatch(/^ConfigError: .*exited and 2 of 2 restarts failed \(got ConfigError: chroma: embedded server did not start .*Not a directory/s);
    expect(chroma.restarts).toBe(2);
  });

  it("names CHROMA_URL when it does not answer", async () => {
    const port = await freePort();
    const err = await ensureChroma({ CHROMA_URL: `http://localhost:${port}` }, join(root, "unused")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(String(err)).toMatch(/^ConfigError: CHROMA_URL: /);
  });

  it("uses a CHROMA_URL that answers and starts its own otherwise", async () => {
    const own = await ensureChroma({}, join(root, "c"));
    started.push(own);
    expect(await heartbeat(own.url)).toBe(true);
    const external = await ensureChroma({ CHROMA_URL: `${own.url}/` }, join(root, "unused"));
    expect(external.url).toBe(own.url);
    await external.stop(); // a no-op: hexa does not own that server
    expect(await heartbeat(own.url)).toBe(true);
    await own.stop();
  });

  it("refuses a port another server holds, since its heartbeat would pass for ours", async () => {
    const blocker = await startChroma({ dataDir: join(root, "d") });
    started.push(blocker);
    const port = Number(new URL(blocker.url).port);
    await expect(startChroma({ dataDir: join(root, "e"), port })).rejects.toThrow(`chroma: port ${port} is already in use`);
    await blocker.stop();
  });

  it("fails with the command and the panic from stderr when the server cannot start", async () => {
    writeFileSync(join(root, "a-file"), "");
    const err = await startChroma({ dataDir: join(root, "a-file", "sub"), healthTimeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(String(err)).toMatch(/cli\.mjs run --path .*a-file\/sub --port \d+/);
    expect(String(err)).toMatch(/Not a directory/);
  });
});
