import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { haveChromium, launchChromium, NO_CHROMIUM } from "./support/browser.ts";
import { copyOfSmallRun, HEXA, hexa, makeRun } from "./support/inspect-runs.ts";

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

/** The tick labels of a chart's x axes (one per panel). */
const xTicks = (page: Page, chart: string) => page.locator(`#${chart} svg g.role-axis[aria-label^="X-axis"] .role-axis-label text`).allTextContents();

/** What a reader would see cut: the page wider than the window, or a label Vega shortened with an ellipsis. */
const overflow = (page: Page) =>
  page.evaluate(() => ({
    sideways: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    cutLabels: [...document.querySelectorAll("svg text")].map((t) => t.textContent ?? "").filter((t) => t.includes("…")),
  }));

/** The width of a full-page screenshot, from its PNG header. */
const screenshotWidth = async (page: Page, path?: string) => (await page.screenshot({ fullPage: true, ...(path ? { path } : {}) })).readUInt32BE(16);

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
    run = process.env.HEXA_INSPECT_RUN ? resolve(process.env.HEXA_INSPECT_RUN) : copyOfSmallRun(join(root, "runs"));
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

    it("labels its seed-index and round axes with whole numbers", async () => {
      const { page } = await open(browser, `file://${join(root, "report.html")}`);
      await page.waitForSelector("#chart-timeline svg .entry_rows_marks", { state: "attached" });
      for (const chart of ["chart-cumulative", "chart-turns", "chart-rounds", "chart-timeline", "chart-weights"]) {
        const ticks = await xTicks(page, chart);
        expect(ticks.length, chart).toBeGreaterThan(1);
        for (const t of ticks) expect(t, chart).toMatch(/^\d+$/);
      }
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
    // Cell names as long as hexa compare's; two cells hold the same runs, so their lines lie on each other.
    const CELLS = [
      "c1_init-off2on_topSkills-6_rounds-1__heuristic-off2on-evolving-heuristic-evolver",
      "c2_init-off2on_topSkills-0_rounds-1__heuristic-off2on-evolving-heuristic-evolver",
      "c3_init-online_topSkills-6_rounds-1__heuristic-online-evolving-heuristic-evolver",
    ];
    let cmp: string;
    beforeAll(() => {
      cmp = join(root, "compare");
      const levels = ["catapult", "pass_the_parcel"];
      makeRun(join(cmp, CELLS[0]!), { rounds: 1, seed: 0, levels });
      makeRun(join(cmp, CELLS[0]!), { rounds: 1, seed: 1, levels });
      cpSync(join(cmp, CELLS[0]!), join(cmp, CELLS[1]!), { recursive: true });
      makeRun(join(cmp, CELLS[2]!), { rounds: 1, init: "online", levels });
      const r = hexa(["inspect", cmp, "--animations", "none"]);
      if (r.code !== 0) throw new Error(r.stderr);
    }, 300_000);

    it("draws one line per cell and level, each cell in its own colour and dash, with a band over its runs", async () => {
      const { page, errors, requests } = await open(browser, `file://${join(cmp, "report.html")}`);
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      // 3 cells × 2 levels (a panel each): six lines, six bands.
      expect(await marks(page, "chart-cumulative", "cell_lines")).toBe(6);
      expect(await marks(page, "chart-cumulative", "band")).toBe(6);
      const styles = await page
        .locator("#chart-cumulative svg g.cell_lines_marks > path")
        .evaluateAll((els) => els.map((el) => [el.getAttribute("stroke"), el.getAttribute("stroke-dasharray") ?? ""]));
      expect(new Set(styles.map(([stroke]) => stroke)).size).toBe(3);
      expect(new Set(styles.map(([, dash]) => dash)).size).toBe(3);
      // The two cells with the same runs are named under the chart.
      expect(await page.locator("#chart-cumulative-note").textContent()).toBe(
        `Same line, drawn one over the other (the dashes show both): ${CELLS[0]} and ${CELLS[1]} on catapult; ${CELLS[0]} and ${CELLS[1]} on pass_the_parcel.`,
      );
      await page.close();
    });

    it("names every cell in full in a legend table, and reads without sideways scrolling at 1280 and 900 pixels", async () => {
      for (const width of [1280, 900]) {
        const { page } = await open(browser, `file://${join(cmp, "report.html")}`);
        await page.setViewportSize({ width, height: 900 });
        const names = page.locator("#curve-legend td.series-name");
        expect(await names.allTextContents()).toEqual(CELLS);
        // Each name whole inside its cell.
        expect(await names.evaluateAll((els) => els.filter((el) => el.scrollWidth > el.clientWidth).length)).toBe(0);
        expect(await overflow(page)).toEqual({ sideways: 0, cutLabels: [] });
        // The summary: a row per run under a header, inside the page.
        expect(await page.locator("#summary-body table.summary tr").count()).toBe(1 + 5);
        for (const chart of ["chart-cumulative", "chart-turns", "chart-rounds"]) for (const t of await xTicks(page, chart)) expect(t, chart).toMatch(/^\d+$/);
        const keep = process.env.HEXA_COMPARE_SCREENSHOT;
        expect(await screenshotWidth(page, keep && width === 1280 ? resolve(keep) : undefined)).toBe(width);
        await page.close();
      }
    });
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
    // Every point, the first, last, best and worst included, at least its own size inside the plot.
    const margin = await page.evaluate(() => {
      const hexa = (
        window as unknown as {
          hexa: {
            views: Record<string, { scale(name: string): ((v: number) => number) & { range(): number[] } }>;
            state: { report: { searches: { candidates: { index: number; fitness: number | null }[] }[] } };
          };
        }
      ).hexa;
      const view = hexa.views["chart-search"]!;
      const [x, y] = [view.scale("x"), view.scale("y")];
      const inside = (scale: typeof x, v: number) => Math.min(scale(v) - Math.min(...scale.range()), Math.max(...scale.range()) - scale(v));
      const trained = hexa.state.report.searches[0]!.candidates.filter((c) => c.fitness !== null);
      return Math.min(...trained.map((c) => Math.min(inside(x, c.index), inside(y, c.fitness!))));
    });
    expect(margin).toBeGreaterThanOrEqual(7);
    expect(await overflow(page)).toEqual({ sideways: 0, cutLabels: [] });
    for (const t of await xTicks(page, "chart-search")) expect(t).toMatch(/^\d+$/);
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
