/**
 * `hexa inspect` report size and speed: the quickstart's run with `--animations none` and with the default (the
 * last solved episode of each level as a GIF), and an LLM-sized copy of it (every episode padded to 25 turns of
 * 3.5 kB observations, bench/inspect-fixture.ts). Per report: its size, the whole `hexa inspect` process's wall
 * time, then in headless Chromium the first contentful paint and the time until every chart's view has run.
 * Run: node --import tsx bench/inspect.ts [--rounds 17] [--repeats 3]   (npm run build first; --rounds 1
 *      --repeats 1 for a quick look)
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { readYamlMapping } from "../src/util/yaml-file.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { stringify } from "yaml";
import { haveChromium, launchChromium, NO_CHROMIUM } from "../test/support/browser.ts";
import { intFlag, parseFlags } from "./flags.ts";
import { formatTable } from "./harness.ts";
import { hexaCli, requireBuild, runDirOf } from "./hexa-cli.ts";
import { llmSizedCopy, LLM_TURNS, LLM_OBSERVATION_CHARS } from "./inspect-fixture.ts";
import { ROOT, recordPage } from "./page.ts";

recordPage("inspect");

const SCRIPT = "bench/inspect.ts";
const flags = parseFlags(SCRIPT, { rounds: "17", repeats: "3" });
const ROUNDS = intFlag(SCRIPT, "rounds", flags.rounds);
const REPEATS = intFlag(SCRIPT, "repeats", flags.repeats);
requireBuild(SCRIPT);

interface Case {
  what: string;
  run: string;
  animations: "none" | "last";
}

interface Timing {
  buildS: number[];
  paintS: number[];
  chartsS: number[];
  bytes: number;
}

const range = (xs: readonly number[]): string => {
  if (xs.length === 0) return "–";
  const lo = Math.min(...xs).toFixed(1);
  const hi = Math.max(...xs).toFixed(1);
  return lo === hi ? `${lo} s` : `${lo}–${hi} s`;
};

/** The quickstart config with `rounds` set, run into `dir`; returns its run directory and episode count. */
const quickstartRun = (dir: string): { run: string; episodes: number } => {
  const cfg = { ...readYamlMapping(join(ROOT, "configs/quickstart.yaml")), rounds: ROUNDS };
  const file = join(dir, "quickstart.yaml");
  writeFileSync(file, stringify(cfg));
  const run = runDirOf(hexaCli(["run", file, "--runs-dir", join(dir, "runs")]).stdout);
  const episodes = readFileSync(join(run, "episodes.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "").length;
  return { run, episodes };
};

/** First contentful paint and every chart's view run, seconds from navigation start, in a fresh page each time. */
const browserTimes = async (html: string): Promise<{ paintS: number[]; chartsS: number[] }> => {
  const out = { paintS: [] as number[], chartsS: [] as number[] };
  if (!haveChromium) return out;
  const browser = await launchChromium();
  try {
    for (let i = 0; i < REPEATS; i++) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(pathToFileURL(html).href, { waitUntil: "load" });
      const t = await page.evaluate(async () => {
        const w = window as unknown as { hexa: { views: Record<string, { runAsync(): Promise<unknown> }> } };
        await Promise.all(Object.values(w.hexa.views).map((v) => v.runAsync()));
        const charts = performance.now();
        const paint = performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Number.NaN;
        return { paint, charts, views: Object.keys(w.hexa.views).length };
      });
      if (t.views === 0) throw new Error(`${html}: the report drew no chart`);
      out.paintS.push(t.paint / 1000);
      out.chartsS.push(t.charts / 1000);
      await page.close();
    }
  } finally {
    await browser.close();
  }
  return out;
};

const measure = async (c: Case, dir: string, i: number): Promise<Timing> => {
  const html = join(dir, `report-${i}.html`);
  const buildS: number[] = [];
  for (let k = 0; k < REPEATS; k++) buildS.push(hexaCli(["inspect", c.run, "--out", html, "--animations", c.animations]).wallS);
  return { buildS, bytes: statSync(html).size, ...(await browserTimes(html)) };
};

const dir = mkdtempSync(join(tmpdir(), "hexa-bench-inspect-"));
try {
  const quick = quickstartRun(dir);
  const llm = llmSizedCopy(quick.run, join(dir, "llm-sized"));
  const cases: Case[] = [
    { what: `quickstart, ${quick.episodes} episodes, --animations none`, run: quick.run, animations: "none" },
    { what: `quickstart, ${quick.episodes} episodes, default (--animations last)`, run: quick.run, animations: "last" },
    {
      what: `${quick.episodes} LLM-sized episodes × ${LLM_TURNS} turns, ${(LLM_OBSERVATION_CHARS / 1000).toFixed(1)} kB observations, --animations none`,
      run: llm,
      animations: "none",
    },
  ];
  const rows: string[][] = [];
  for (const [i, c] of cases.entries()) {
    const t = await measure(c, dir, i);
    rows.push([c.what, `${(t.bytes / 2 ** 20).toFixed(1)} MiB`, range(t.buildS), range(t.paintS), range(t.chartsS)]);
  }
  console.log(`${REPEATS} build(s) and ${REPEATS} page load(s) per report; ranges are lowest–highest\n`);
  console.log(formatTable(["run", "report", "built in (whole process)", "first paint (Chromium)", "all charts drawn (Chromium)"], rows));
  if (!haveChromium) console.log(`\n${NO_CHROMIUM}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
