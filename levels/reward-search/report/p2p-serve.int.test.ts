import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { foldEvents, type BankEvent } from "../../../src/store/bank.ts";
import { lessonAdded } from "../../../src/store/lesson-log.ts";
import { HEXA, hexa } from "../../../test/support/inspect-runs.ts";
import { tempDirs } from "../../../test/support/temp-files.ts";
import { p2pSearch } from "./fixtures/p2p-search.ts";

/** `hexa inspect` on a p2p search directory from the command line: the page written, and with --serve followed as the search writes. */

const tmp = tempDirs("hexa-p2p-serve-");
const running: ChildProcess[] = [];
afterEach(() => {
  for (const c of running.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

/** The server-sent events of /events as they arrive. */
const follow = (port: number): { text: () => string } => {
  let text = "";
  request({ host: "127.0.0.1", port, path: "/events" }, (res) => res.setEncoding("utf8").on("data", (d: string) => (text += d))).end();
  return { text: () => text };
};

describe("hexa inspect on a p2p search", () => {
  it("writes the page into the folder, and --serve pushes an event and serves the new page when a lesson lands", async () => {
    const dir = await p2pSearch(tmp(), "search");
    const written = hexa(["inspect", dir]);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toContain("p2p search on cartpole: 3 iterations (3 judged, 1 branches), 2 lessons");
    expect(existsSync(join(dir, "report.html"))).toBe(true);

    const child = spawn(process.execPath, [HEXA, "inspect", dir, "--serve", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    running.push(child);
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    await expect.poll(() => out, { timeout: 60_000, interval: 100 }).toMatch(/serving .* on http:\/\/127\.0\.0\.1:\d+\//);
    const port = Number(out.match(/127\.0\.0\.1:(\d+)\//)![1]);
    const first = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    expect(first).toContain("connect-src 'self'");
    expect(first).not.toContain("a lesson that lands while served");

    const events = follow(port);
    await expect.poll(() => events.text(), { timeout: 10_000 }).toContain(": following the folder");
    const log = join(dir, "bank-events.jsonl");
    const bank = foldEvents(
      readFileSync(log, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as BankEvent),
    );
    appendFileSync(log, `${JSON.stringify(lessonAdded(bank, { text: "a lesson that lands while served", round: 3 }))}\n`);
    await expect.poll(() => events.text(), { timeout: 10_000 }).toContain("data: ");
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toContain("a lesson that lands while served");
    const forged = await new Promise<number>((done) =>
      request({ host: "127.0.0.1", port, path: "/", headers: { host: "evil.example.com" } }, (res) => done(res.statusCode!)).end(),
    );
    expect(forged).toBe(403);

    // The page carries the correction box of the search it shows, and its POST adds a correction to it.
    const page = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    const token = page.match(/name="token" value="([0-9a-f]{64})"/)?.[1];
    expect(token, "the served p2p page has a correction box").toBeDefined();
    expect(page).toContain('<option value=".">this search</option>');
    const posted = await fetch(`http://127.0.0.1:${port}/correct`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: token!, dir: ".", text: "land softer" }).toString(),
    });
    expect(posted.status, await posted.text()).toBe(200);
    expect(readFileSync(join(dir, "corrections.jsonl"), "utf8")).toContain('"text":"land softer"');
    expect((await fetch(`http://127.0.0.1:${port}/`, { method: "PUT" })).status).toBe(405);
  });
});
