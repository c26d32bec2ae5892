import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { request } from "node:http";
import { basename, join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HEXA, hexa } from "../support/inspect-runs.ts";
import { tempDirs } from "../support/temp-files.ts";

/**
 * `hexa inspect --serve` against what a web page or a careless user sends it (docs/security.md): raw request
 * paths and Host headers as a page's <img> or a DNS-rebinding page produce them (http.request, since fetch
 * normalises both), and a run directory deleted under it.
 */

const FIXTURE = resolve(import.meta.dirname, "..", "fixtures", "run-v1", "v1-fixture__heuristic-off2on-evolving-heuristic-evolver__s0__20261203T062826Z");
const tmp = tempDirs("hexa-hostile-serve-");

interface Served {
  child: ChildProcess;
  port: number;
  stderr: () => string;
}

const running: ChildProcess[] = [];
afterEach(() => {
  for (const c of running.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

/** A copy of the fixture run served on a free port. */
const serveCopy = async (): Promise<Served & { run: string }> => {
  const run = join(tmp(), basename(FIXTURE));
  cpSync(FIXTURE, run, { recursive: true });
  const child = spawn(process.execPath, [HEXA, "inspect", run, "--serve", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
  running.push(child);
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  await expect.poll(() => out + err, { timeout: 60_000, interval: 100 }).toMatch(/serving .* on http:\/\/127\.0\.0\.1:\d+\//);
  return { child, run, port: Number(out.match(/127\.0\.0\.1:(\d+)\//)![1]), stderr: () => err };
};

/** One request with this exact path and Host header, as a raw client sends them. */
const raw = (port: number, path: string, host = `127.0.0.1:${port}`): Promise<{ status: number; body: string }> =>
  new Promise((done, fail) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { host } }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (d: string) => (body += d));
      res.on("end", () => done({ status: res.statusCode!, body }));
    });
    req.on("error", fail);
    req.end();
  });

/** Still running, and a normal request for the report is answered with the run. */
const stillServes = async (s: Served, runId: string) => {
  expect(s.child.exitCode).toBeNull();
  const ok = await raw(s.port, "/report.json");
  expect(ok.status).toBe(200);
  expect(ok.body).toContain(runId);
};

describe("hexa inspect --serve: hostile requests", () => {
  it("answers 400 to a path no URL parser reads (an <img src> on any page can send it) and keeps serving", async () => {
    const s = await serveCopy();
    const bad = await raw(s.port, "//a:99999/x");
    expect(bad.status).toBe(400);
    expect(bad.body).toMatch(/^not a URL this server reads \(got "\/\/a:99999\/x"\)/);
    await stillServes(s, basename(FIXTURE));
    expect(s.stderr()).not.toMatch(/TypeError|\n\s+at /);
  });

  it("answers 403 to a Host that is not a loopback name with its port (DNS rebinding), with none of the run", async () => {
    const s = await serveCopy();
    for (const host of ["evil.example.com", `evil.example.com:${s.port}`, `127.0.0.1:${s.port + 1}`, "127.0.0.1", `127.0.0.1.nip.io:${s.port}`]) {
      const forged = await raw(s.port, "/report.json", host);
      expect(forged.status, host).toBe(403);
      expect(forged.body, host).not.toContain(basename(FIXTURE));
    }
    for (const host of [`localhost:${s.port}`, `[::1]:${s.port}`, `LOCALHOST:${s.port}`])
      expect((await raw(s.port, "/report.json", host)).status, host).toBe(200);
    await stillServes(s, basename(FIXTURE));
  });
});

describe("hexa inspect: files that vanish or point nowhere", () => {
  it("--serve keeps serving the last report when the run directory is deleted, and says so once", async () => {
    const s = await serveCopy();
    rmSync(s.run, { recursive: true, force: true });
    const said = `${s.run}: deleted or moved while served`;
    await expect.poll(s.stderr, { timeout: 30_000, interval: 100 }).toContain(said);
    // Several more polls of the directory pass: the deletion is told once, not at each.
    await new Promise((r) => setTimeout(r, 1500));
    expect(s.stderr().split(said).length - 1).toBe(1);
    expect(s.stderr()).not.toMatch(/ENOENT|\n\s+at /);
    const report = JSON.parse((await raw(s.port, "/report.json")).body) as { notices: string[] };
    expect(report.notices[0]).toMatch(new RegExp(`^${said}; the page shows it as last read at `));
    expect((await raw(s.port, "/")).status).toBe(200);
    await stillServes(s, basename(FIXTURE));
  });

  it("reads a comparison directory holding a link to nothing and a link to itself, and names a dangling DIR in one line", async () => {
    const dir = tmp();
    const cmp = join(dir, "cmp");
    mkdirSync(cmp);
    cpSync(FIXTURE, join(cmp, basename(FIXTURE)), { recursive: true });
    symlinkSync(join(dir, "gone"), join(cmp, "dangling"));
    symlinkSync(join(cmp, "loop"), join(cmp, "loop"));
    const r = hexa(["inspect", cmp, "--animations", "none"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^wrote .*report\.html \(.*: 6 episodes/);

    symlinkSync(join(dir, "gone"), join(dir, "link"));
    const d = hexa(["inspect", join(dir, "link")]);
    expect(d.code).toBe(2);
    expect(d.stderr).toBe(
      `hexa: ${join(dir, "link")}: a link to ${join(dir, "gone")}, which does not exist; give a run directory (runs/<id>) or a comparison directory\n`,
    );
  });
});
