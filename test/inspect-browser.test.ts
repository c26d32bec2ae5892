import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { haveChromium, launchChromium, NO_CHROMIUM } from "./support/browser.ts";
import { HEXA, hexa, makeRun } from "./support/inspect-runs.ts";

/**
 * `hexa inspect` in real headless Chromium (docs/ARCHITECTURE.md §8). HEXA_INSPECT_RUN=runs/<id> tests that run
 * instead of a small one; HEXA_INSPECT_SCREENSHOT=docs/img/inspect.png keeps the screenshot.
 */

if (!haveChromium) console.warn(NO_CHROMIUM);
const suite = haveChromium ? describe : describe.skip;

const lines = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "");
interface LogLine {
  level: string;
  event?: { type: string; round: number; entry?: { id: string } };
}
const bankLines = (run: string) => lines(join(run, "bank-events.jsonl")).map((l) => JSON.parse(l) as LogLine);

/** Opens a page and records console errors, page errors and every request that is not the file itself or inline data. */
const open = async (browser: Browser, url: string) => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  const requests: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("request", (r) => {
    if (!r.url().startsWith("data:") && r.url() !== url && !r.url().startsWith(new URL(url).origin === "null" ? "file:" : new URL(url).origin))
      requests.push(r.url());
  });
  const t0 = performance.now();
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { hexa?: { views: Record<string, unknown> } }).hexa?.views["chart-cumulative"] !== undefined);
  // "attached", not visible: a flat line has an empty bounding box.
  await page.waitForSelector("#chart-cumulative svg .episode_points_marks, #chart-cumulative svg .cell_lines_marks", { state: "attached" });
  const loadMs = performance.now() - t0;
  return { page, errors, requests, loadMs };
};

const marks = (page: Page, chart: string, name: string) => page.locator(`#${chart} svg g.${name}_marks > path`).count();

const freePort = (): Promise<number> =>
  new Promise((done) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });

const serveOn = async (dir: string, port: number): Promise<{ child: ChildProcess; url: string; out: () => string }> => {
  const child = spawn(process.execPath, [HEXA, "inspect", dir, "--serve", "--port", String(port)], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  await expect.poll(() => out, { timeout: 60_000, interval: 200 }).toMatch(/serving .* on http:\/\/127\.0\.0\.1:\d+\//);
  return { child, url: out.match(/http:\/\/127\.0\.0\.1:\d+\//)![0], out: () => out };
};

let root: string;
let run: string;
let browser: Browser;

suite("hexa inspect in Chromium", () => {
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "hexa-inspect-browser-"));
    run = process.env.HEXA_INSPECT_RUN ? resolve(process.env.HEXA_INSPECT_RUN) : makeRun(join(root, "runs"));
    const r = hexa(["inspect", run, "--out", join(root, "report.html")]);
    if (r.code !== 0) throw new Error(r.stderr);
    browser = await launchChromium();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    rmSync(root, { recursive: true, force: true });
  });

  describe("a run's report", () => {
    it("loads a run's report from disk with no console error and no request leaving the file", async () => {
      const { page, errors, requests, loadMs } = await open(browser, `file://${join(root, "report.html")}`);
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      const paint = await page.evaluate(() => performance.getEntriesByType("paint").map((e) => Math.round(e.startTime)));
      console.log(`report opened in ${loadMs.toFixed(0)} ms (charts drawn); first paint at ${paint.join(", ")} ms`);
      await page.close();
    });

    it("draws one learning-curve mark per episode and one timeline row per entry ever created", async () => {
      const { page } = await open(browser, `file://${join(root, "report.html")}`);
      const stream = lines(join(run, "episodes.jsonl")).filter((l) => l.includes('"phase":"stream"')).length;
      expect(await marks(page, "chart-cumulative", "episode_points")).toBe(stream);
      await page.waitForSelector("#chart-timeline svg .entry_rows_marks", { state: "attached" });
      const created = bankLines(run).filter((l) => l.event?.type === "add" || l.event?.type === "merge").length;
      expect(await marks(page, "chart-timeline", "entry_rows")).toBe(created);
      if (process.env.HEXA_INSPECT_SCREENSHOT) {
        // The learning curves and the bank timeline in one picture.
        await page.setViewportSize({ width: 1280, height: 1560 });
        await page.evaluate(() => window.scrollTo(0, document.getElementById("curves")!.offsetTop - 80));
        await page.screenshot({ path: resolve(process.env.HEXA_INSPECT_SCREENSHOT) });
      }
      await page.close();
    });

    it("shows, between two rounds chosen in the diff view, an entry the events say was created between them", async () => {
      const { page } = await open(browser, `file://${join(root, "report.html")}`);
      const made = bankLines(run).find((l) => (l.event?.type === "add" || l.event?.type === "merge") && l.event.round > 0)!;
      const { round } = made.event!;
      await page.selectOption("#diff-level", made.level);
      await page.selectOption("#diff-a", String(round - 1));
      await page.selectOption("#diff-b", String(round));
      const added = page.locator(`#diff-body .added .entry[data-id="${made.event!.entry!.id}"]`);
      await expect.poll(() => added.count()).toBe(1);
      expect(await added.locator("ins").count()).toBeGreaterThan(0);
      await page.close();
    });

    it("opens an episode to its turns, the entries it was shown and a picture", async () => {
      const { page } = await open(browser, `file://${join(root, "report.html")}`);
      const first = page.locator("#episode-list tr.episode").first();
      const id = await first.getAttribute("data-id");
      await first.click();
      const detail = page.locator(`#episode-list tr.episode-detail[data-for="${id}"]`);
      const rec = JSON.parse(lines(join(run, "episodes.jsonl")).find((l) => l.includes(`"id":"${id}"`))!) as { trajectory: { steps: unknown[] } };
      expect(await detail.locator(".turn").count()).toBe(rec.trajectory.steps.length);
      expect(await detail.locator(".turn pre.observation").first().textContent()).toMatch(/\S/);
      const img = detail.locator("img.scene");
      await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(240);
      await page.close();
    });
  });

  describe("--serve", () => {
    let live: string;
    beforeAll(() => {
      // A run caught mid-way: its first episodes written, the next appended while the page is open, as hexa run does.
      live = join(mkdtempSync(join(root, "live-")), basename(run));
      cpSync(run, live, { recursive: true });
      rmSync(join(live, "report.html"), { force: true });
    });

    it("shows a new episode without a reload, and stops cleanly on Ctrl-C", async () => {
      const all = lines(join(live, "episodes.jsonl"));
      const firstStream = all.findIndex((l) => l.includes('"phase":"stream"'));
      writeFileSync(join(live, "episodes.jsonl"), `${all.slice(0, firstStream + 1).join("\n")}\n`);
      const { child, url, out } = await serveOn(live, await freePort());
      const { page, errors, requests } = await open(browser, url);
      const rows = page.locator("#episode-list tr.episode");
      expect(await rows.count()).toBe(1);
      await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
      appendFileSync(join(live, "episodes.jsonl"), `${all[firstStream + 1]}\n`);
      await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
      expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
      expect(await page.locator("#live-status").textContent()).toMatch(/live: updated/);
      // The animation of an episode is made on demand.
      await rows.nth(1).click();
      const anim = page.locator("#episode-list img.animation");
      await expect.poll(() => anim.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth), { timeout: 30_000 }).toBe(240);
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      await page.close();
      const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
      child.kill("SIGINT");
      expect(await exited).toBe(0);
      expect(out()).toMatch(/hexa inspect: stopped/);
    });

    it("says so when the port is in use", async () => {
      const port = await freePort();
      const taken = createServer().listen(port, "127.0.0.1");
      await new Promise((done) => taken.once("listening", done));
      const r = await new Promise<{ code: number | null; err: string }>((done) => {
        const child = spawn(process.execPath, [HEXA, "inspect", live, "--serve", "--port", String(port)], { stdio: ["ignore", "pipe", "pipe"] });
        let err = "";
        child.stderr.on("data", (d: Buffer) => (err += d.toString()));
        child.on("exit", (code) => done({ code, err }));
      });
      taken.close();
      expect(r.code).toBe(2);
      expect(r.err).toMatch(new RegExp(`--port ${port}: 127\\.0\\.0\\.1:${port} is already in use .*choose another with --port N`));
    });
  });

  describe("a comparison directory", () => {
    it("draws one line per cell and level with a band over its runs", async () => {
      const cmp = join(root, "compare");
      mkdirSync(cmp, { recursive: true });
      const levels = ["catapult"];
      makeRun(join(cmp, "off2on"), { rounds: 1, seed: 0, levels });
      makeRun(join(cmp, "off2on"), { rounds: 1, seed: 1, levels });
      makeRun(join(cmp, "online"), { rounds: 1, init: "online", levels });
      const r = hexa(["inspect", cmp, "--animations", "none"]);
      expect(r.code, r.stderr).toBe(0);
      const { page, errors, requests } = await open(browser, `file://${join(cmp, "report.html")}`);
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      // 2 cells × 1 level: two lines, two bands.
      expect(await marks(page, "chart-cumulative", "cell_lines")).toBe(2);
      expect(await page.locator("#chart-cumulative svg g.band_layer_0_marks > path").count()).toBe(2);
      expect(await page.locator("#summary-body table.summary tr").first().locator("td").count()).toBe(3);
      await page.close();
    }, 300_000);
  });
});

suite("hexa inspect in Chromium: the lineage of a reward search (docs/spec/reward-search.md §8.2)", () => {
  const search = resolve(import.meta.dirname, "fixtures", "searches", "rf-agent-cartpole-s0");
  let dir: string;
  let chromium: Browser;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "hexa-inspect-lineage-"));
    const r = hexa(["inspect", search, "--out", join(dir, "search.html")]);
    if (r.code !== 0) throw new Error(r.stderr);
    chromium = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await chromium?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("draws a point per candidate and a tree node per candidate under its parent; a node opens to its code", async () => {
    const url = `file://${join(dir, "search.html")}`;
    const page = await chromium.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    const requests: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("request", (r) => {
      if (!r.url().startsWith("data:") && r.url() !== url) requests.push(r.url());
    });
    await page.goto(url);
    await page.waitForSelector("#chart-search svg .candidate_points_marks", { state: "attached" });
    const recs = lines(join(search, "candidates.jsonl")).map((l) => JSON.parse(l) as { index: number; parent: number | null; code: string });
    expect(await marks(page, "chart-search", "candidate_points")).toBe(recs.length);
    // Each node sits inside its parent's node (the nearest enclosing li), roots at the top.
    const placed = await page
      .locator("#search-tree li.node")
      .evaluateAll((els) => els.map((el) => [Number(el.getAttribute("data-index")), el.parentElement!.closest("li.node")?.getAttribute("data-index") ?? null]));
    expect(placed.sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual(recs.map((r) => [r.index, r.parent === null ? null : String(r.parent)]));
    expect(await page.locator("#episodes").isHidden()).toBe(true);
    await page.locator('#search-tree details[data-index="5"] > summary').click();
    const code = page.locator('#search-tree details[data-index="5"] pre.code');
    expect(await code.isVisible()).toBe(true);
    expect(await code.textContent()).toBe(recs[5]!.code);
    expect(await page.locator('#search-tree li.node[data-index="5"] > details > summary .badge.best').count()).toBe(1);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await page.close();
  });
});
