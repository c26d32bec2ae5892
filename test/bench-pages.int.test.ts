import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gitCommit, PAGES_DIR, ROOT, renderPage, type PageHeader } from "../bench/page.ts";
import { BENCH_HELPERS, BENCH_PAGES, type BenchPageName } from "../bench/pages.ts";
import { DATA_DIR, DATA_PAGES, renderDataPage } from "../bench/data-pages.ts";
import { DistributedData, renderDistributedPage } from "../bench/distributed-page.ts";

const BENCH = join(ROOT, "bench");
const scripts = readdirSync(BENCH).filter((f) => f.endsWith(".ts") && !(BENCH_HELPERS as readonly string[]).includes(f));
const HEADER_FIELDS = ["- Command: ", "- Commit: ", "- Machine: ", "- Date: ", "- Load average (1 / 5 / 15 min): "];

describe("bench pages (docs/benchmarks/README.md)", () => {
  it("every bench script records its own page (or writes its data and the page from it), and every page has a script", () => {
    expect(scripts.length).toBeGreaterThanOrEqual(10);
    for (const f of scripts) {
      const name = f.replace(/\.ts$/, "");
      expect(Object.keys(BENCH_PAGES), `bench/${f} has no entry in bench/pages.ts`).toContain(name);
      const call = name in DATA_PAGES ? `writeDataPage("${name}"` : `recordPage("${name}")`;
      expect(readFileSync(join(BENCH, f), "utf8"), `bench/${f} does not call ${call}`).toContain(call);
    }
    for (const name of Object.keys(BENCH_PAGES)) expect(existsSync(join(BENCH, `${name}.ts`)), `bench/${name}.ts`).toBe(true);
  });

  it.each(Object.keys(DATA_PAGES))("%s.md is its data file rendered again, nothing more", (name) => {
    const data = join(DATA_DIR, DATA_PAGES[name as BenchPageName]!.file);
    expect(existsSync(data), `${data} is missing`).toBe(true);
    expect(renderDataPage(name as BenchPageName)).toBe(readFileSync(join(PAGES_DIR, `${name}.md`), "utf8"));
  });

  it("README's strategy table gives the verdicts of the page rendered from data: none where no pair differs beyond noise", () => {
    const page = renderDataPage("reward-search-strategies");
    const readme = readFileSync(join(ROOT, "README.md"), "utf8").split("\n");
    const verdicts = [...page.matchAll(/^- (\w+): (differ beyond noise|the strategies do not differ beyond noise)/gm)];
    expect(verdicts.length).toBeGreaterThanOrEqual(4);
    for (const [, task, verdict] of verdicts) {
      const label = task!.replace(/_continuous$/, "").replaceAll("_", " ");
      const row = readme.find((l) => l.startsWith(`| ${label} (`));
      expect(row, `README has no row for ${label}`).toBeDefined();
      const cell = row!.split("|").at(-2)!.trim();
      expect(cell.startsWith("none"), `${label}: "${cell}" against the page's "${verdict}"`).toBe(verdict !== "differ beyond noise");
    }
  });

  describe("the distributed page", () => {
    const episode = (level: string, seed: number, worker: string) => ({ level, seed, ms: 3100, worker });
    const run = (repetition: number, workers: number, spanS: number, seeds = [0, 1]) => ({
      repetition,
      workers,
      commit: "0123abcd",
      started: "2026-01-02T03:04:05.000Z",
      loadStart: [1, 2, 3],
      spanS,
      commandS: spanS + 4,
      calls: seeds.length * 3,
      episodes: seeds.map((s, i) => episode("pass_the_parcel", s, `w${i % workers}`)),
      warmup: Array.from({ length: workers }, (_, i) => episode("pass_the_parcel", 9, `w${i}`)),
    });
    const data = (runs: ReturnType<typeof run>[]) =>
      DistributedData.parse({
        schemaVersion: 1,
        command: "node --import tsx bench/distributed.ts --write-page",
        machine: "Test CPU, 2 cores",
        started: "2026-01-02T03:04:05.000Z",
        finished: "2026-01-02T03:05:05.000Z",
        loadStart: [1, 2, 3],
        loadEnd: [1, 2, 3],
        setup: { agent: "react", model: "m", latencyMs: 1000, callsPerEpisode: 3, answer: "a get_level_state call", cache: "off", concurrencyPerWorker: 1 },
        repetitions: 3,
        runs,
        queueOverheadMs: 1.5,
        recovery: { seconds: 2.1, lockMs: 2000, stalledMs: 1000 },
      });

    it("gives each repetition's speed-up (1 worker's span over 2 workers'), then their mean and spread", () => {
      const page = renderDistributedPage(data([run(0, 1, 10), run(0, 2, 5), run(1, 2, 5), run(1, 1, 9), run(2, 1, 12), run(2, 2, 5)]), "T", "data/d.json");
      expect(page).toContain("per repetition, n 3): ×2.00, ×1.80, ×2.40; mean ×2.07, sd 0.31, min–max ×1.80 to ×2.40");
      expect(page).toContain("2 × (1-worker ms/episode ÷ 2-worker ms/episode), per repetition: ×2.00, ×2.00, ×2.00");
      expect(page).toContain("3000 ms of an episode's 3100 ms on 1 worker (97 %) is model wait");
      expect(page).toContain("(the same episodes in every run)");
      expect(page).toContain("| 1 | 2 | 2 | 5.00 | 3100 | 1 + 1 | 6 of 6 | 9.0 | 3100, 3100 | 1.00 / 2.00 / 3.00 |");
    });

    it("says when the runs did not play the same episodes, and gives no spread for one repetition", () => {
      const page = renderDistributedPage(data([run(0, 1, 10, [0, 1]), run(0, 2, 5, [0, 2])]), "T", "data/d.json");
      expect(page).toContain("NOT the same episodes in every run");
      expect(page).toContain("n 1): ×2.00; mean ×2.00 (one repetition: no spread)");
    });
  });

  it("docs/benchmarks/README.md lists each page with the command that writes it", () => {
    const readme = readFileSync(join(PAGES_DIR, "README.md"), "utf8");
    for (const [name, page] of Object.entries(BENCH_PAGES)) {
      const row = readme.split("\n").find((l) => l.startsWith(`| [${name}.md](${name}.md)`) || l.startsWith(`| ${name}.md `));
      expect(row, `no row for ${name}.md`).toBeDefined();
      expect(row).toContain(`\`${page.command}\``);
    }
  });

  it("a page made from a tiny table carries every header field, then the table verbatim", () => {
    const header: PageHeader = {
      title: "Fake bench",
      command: "node --import tsx bench/fake.ts --n 2 --write-page",
      commit: "0123abcd + uncommitted changes",
      machine: { cpu: "Test CPU @ 1 GHz", cores: 2, memoryGiB: 3.5, node: "v20.0.0", platform: "linux/x64" },
      started: "2026-01-02T03:04:05.000Z",
      finished: "2026-01-02T03:04:09.000Z",
      loadStart: [1, 2, 3],
      loadEnd: [0.5, 0.25, 0.125],
    };
    const table = "| a | b |\n|---|---:|\n| x | 1 |\nverdict: within";
    const page = renderPage(header, `${table}\n\n`);
    expect(page.split("\n")[0]).toBe("# Fake bench");
    for (const field of HEADER_FIELDS) expect(page).toContain(field);
    expect(page).toContain("`node --import tsx bench/fake.ts --n 2 --write-page`");
    expect(page).toContain("0123abcd + uncommitted changes");
    expect(page).toContain("Test CPU @ 1 GHz, 2 cores, 3.5 GiB memory, Node v20.0.0");
    expect(page).toContain("2026-01-02T03:04:05.000Z to 2026-01-02T03:04:09.000Z");
    expect(page).toContain("1.00 / 2.00 / 3.00 at start, 0.50 / 0.25 / 0.13 at end");
    expect(page).toContain(`\`\`\`text\n${table}\n\`\`\``);
  });

  it("marks a commit with uncommitted changes to tracked files, but not to the pages themselves", () => {
    const repo = mkdtempSync(join(tmpdir(), "hexa-bench-commit-"));
    try {
      const git = (...args: string[]) =>
        spawnSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd: repo, encoding: "utf8" }).stdout.trim();
      mkdirSync(join(repo, "docs", "benchmarks"), { recursive: true });
      writeFileSync(join(repo, "code.ts"), "1\n");
      writeFileSync(join(repo, "docs", "benchmarks", "sim.md"), "# page\n");
      git("init", "-q");
      git("add", ".");
      git("commit", "-qm", "c");
      const sha = git("rev-parse", "HEAD");
      writeFileSync(join(repo, "docs", "benchmarks", "sim.md"), "# page, rewritten\n");
      expect(gitCommit(repo)).toBe(sha);
      writeFileSync(join(repo, "code.ts"), "2\n");
      expect(gitCommit(repo)).toBe(`${sha} + uncommitted changes`);
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });

  describe("a script run with and without --write-page", () => {
    const dir = mkdtempSync(join(tmpdir(), "hexa-bench-page-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    // .mts: an ES module like the repository's own scripts, wherever the temporary folder is.
    const script = join(dir, "fake-bench.mts");
    writeFileSync(
      script,
      `import { recordPage } from ${JSON.stringify(join(BENCH, "page.ts"))};\n` +
        `recordPage("sandbox", { dir: ${JSON.stringify(dir)} });\n` +
        `console.log("| n | ms |\\n|---:|---:|\\n| 1 | 2.5 |");\nprocess.stdout.write("verdict: fine\\n");\n`,
    );
    const run = (...args: string[]) => spawnSync(process.execPath, ["--import", "tsx", script, ...args], { cwd: ROOT, encoding: "utf8" });

    it("without the flag it only prints", () => {
      const r = run("--n", "1");
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain("| 1 | 2.5 |");
      expect(existsSync(join(dir, "sandbox.md"))).toBe(false);
    });

    it("with the flag it writes its page: header, then what it printed", () => {
      const r = run("--n", "1", "--write-page");
      expect(r.status, r.stderr).toBe(0);
      const page = readFileSync(join(dir, "sandbox.md"), "utf8");
      expect(page.split("\n")[0]).toBe(`# ${BENCH_PAGES.sandbox.title}`);
      for (const field of HEADER_FIELDS) expect(page).toContain(field);
      expect(page).toMatch(/- Commit: [0-9a-f]{40}/);
      expect(page).toContain("--n 1 --write-page`");
      expect(page).toContain("| n | ms |\n|---:|---:|\n| 1 | 2.5 |\nverdict: fine\n```");
    });
  });
});
