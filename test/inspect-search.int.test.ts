import { createAppContext } from "../src/app/context.ts";
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findSearchDirs, findTarget, readSearchInput } from "../src/app/inspect-load.ts";
import { searchView } from "../src/report/inspect/search-view.ts";
import { writeFinalScores } from "../src/store/final-scores.ts";
import { hexa } from "./support/inspect-runs.ts";

/** The shipped families, as hexa has them with no HEXA_FAMILIES. */
const { families } = await createAppContext({});

// The families are built once, as the CLI builds them before a command reads them.
await families.load();

/**
 * The lineage view of `hexa inspect` (docs/spec/reward-search.md §8.2) on real `hexa search` directories (test/fixtures/searches/README.md):
 * the loader, the tree it builds, and the report's data, for a search directory, a directory of searches and a run
 * directory that holds a search.
 */

const FIXTURES = resolve(import.meta.dirname, "fixtures", "searches");
const RF = join(FIXTURES, "rf-agent-cartpole-s0");
const RUN_V1 = resolve(import.meta.dirname, "fixtures", "run-v1");

interface Line {
  index: number;
  parent: number | null;
  operator: string;
  code: string;
  outcome: { kind: string; fitness?: number };
}
const records = (dir: string): Line[] =>
  readFileSync(join(dir, "candidates.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Line);

/** The report's data, as the page reads it from its <script id="hexa-data">. */
interface PageSearch {
  name: string;
  best: number | null;
  roots: number[];
  candidates: { index: number; parent: number | null; code: string; children: number[] }[];
}
const pageData = (html: string) =>
  JSON.parse(html.match(/<script type="application\/json" id="hexa-data">([\s\S]*?)<\/script>/)![1]!) as {
    kind: string;
    searches: PageSearch[];
    cells: { runs: { episodes: unknown[] }[] }[];
  };

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "hexa-inspect-search-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the search loader", () => {
  it("finds every directory holding a candidates.jsonl, nested, skipping dot directories", () => {
    const dir = join(root, "nested");
    cpSync(RF, join(dir, "runs", "search", "rf"), { recursive: true });
    cpSync(join(FIXTURES, "eureka-cartpole-s0"), join(dir, "a", "b", "eureka"), { recursive: true });
    cpSync(RF, join(dir, ".trainer-jobs", "rf"), { recursive: true });
    mkdirSync(join(dir, "empty"));
    expect(findSearchDirs(dir).map((p) => p.slice(dir.length + 1))).toEqual(["a/b/eureka", "runs/search/rf"]);
    expect(findSearchDirs(RF)).toEqual([RF]);
  });

  it("reads search.json and every candidate, and names the best by the final policy's F", () => {
    const s = readSearchInput(RF, FIXTURES);
    expect(s.name).toBe("rf-agent-cartpole-s0");
    expect(s.header).toMatchObject({ strategy: "rf-agent", task: "cartpole", seed: 0, budget: 6, trainSteps: 2000 });
    expect(s.candidates.map((c) => c.index)).toEqual([0, 1, 2, 3, 4, 5]);
    // F of the final policies in the file: 93, 93, 93, 93.33, 92.33, 94.67 — #5 is the best; its best checkpoint is higher but is not the score.
    const fs = records(RF).map((r) => r.outcome.fitness!);
    expect(s.best).toBe(fs.indexOf(Math.max(...fs)));
    expect(s.best).toBe(5);
    expect(s.notices).toEqual([]);
  });

  it("shows a torn last line as far as it goes, with a notice, without changing the file", () => {
    const torn = join(root, "torn");
    cpSync(RF, torn, { recursive: true });
    appendFileSync(join(torn, "candidates.jsonl"), '{"schemaVersion":1,"index":6,"strategy":"rf-');
    const before = readFileSync(join(torn, "candidates.jsonl"), "utf8");
    const s = readSearchInput(torn, root);
    expect(s.candidates).toHaveLength(6);
    expect(s.notices.join("\n")).toMatch(/candidates\.jsonl: the last line is incomplete .* candidates are shown up to the line before it/);
    expect(readFileSync(join(torn, "candidates.jsonl"), "utf8")).toBe(before);
  });

  it("keeps a damaged search as a notice instead of failing the report, and says when search.json is missing", () => {
    const bad = join(root, "bad");
    mkdirSync(bad);
    writeFileSync(join(bad, "candidates.jsonl"), '{"index": "zero"}\n');
    const s = readSearchInput(bad, root);
    expect(s.candidates).toEqual([]);
    expect(s.notices.join("\n")).toMatch(/candidates\.jsonl:1: .*no candidate of this search is shown/);
    expect(s.notices.join("\n")).toMatch(/no search\.json beside candidates\.jsonl/);
  });
});

describe("the lineage tree", () => {
  it("puts every candidate under its parent and marks the path to the best", () => {
    const v = searchView(readSearchInput(RF, FIXTURES));
    expect(v.roots).toEqual([0, 1]);
    const node = (i: number) => v.candidates.find((c) => c.index === i)!;
    expect([0, 1, 2, 3, 4, 5].map((i) => node(i).children)).toEqual([[2, 3], [], [], [4, 5], [], []]);
    expect([0, 1, 2, 3, 4, 5].map((i) => node(i).depth)).toEqual([0, 0, 1, 1, 2, 2]);
    expect(v.candidates.filter((c) => c.bestPath).map((c) => c.index)).toEqual([0, 3, 5]);
    expect(v.candidates.filter((c) => c.best).map((c) => c.index)).toEqual([5]);
    // The final policy's F is the score; the best checkpoint is kept beside it, never in its place.
    expect(node(5).fitness).toBeCloseTo(94.667, 2);
    expect(node(5).bestCheckpoint!.fitness).toBeGreaterThan(node(5).fitness!);
    expect(v.counts).toEqual({ candidates: 6, ok: 6, failed: 0, cached: 0 });
    expect(v.operators).toEqual({ initial: 2, structural: 2, parameter: 2 });
  });

  it("shows a failed training with its error, and a candidate whose parent is missing as a root with a notice", () => {
    const s = readSearchInput(RF, FIXTURES);
    const failed = s.candidates.map((c) =>
      c.index === 4 ? { ...c, outcome: { kind: "error" as const, error: "sandbox", message: "line 3: x is not defined" } } : c,
    );
    const orphaned = failed.filter((c) => c.index !== 3);
    const v = searchView({ ...s, candidates: orphaned, best: 5 });
    const node = (i: number) => v.candidates.find((c) => c.index === i)!;
    expect(node(4)).toMatchObject({ fitness: null, error: "sandbox: line 3: x is not defined" });
    expect(node(4).bestCheckpoint).toBeUndefined();
    expect(v.roots).toEqual([0, 1, 4, 5]);
    expect(v.counts).toMatchObject({ candidates: 5, ok: 4, failed: 1 });
    expect(v.notices.join("\n")).toMatch(/#4 \(parent #3\), #5 \(parent #3\): the parent is not in candidates\.jsonl; drawn as roots/);
  });
});

describe("re-debug in the lineage", () => {
  it("a candidate keeps the codes its check refused, with their errors; one without has none (old logs)", () => {
    const s = readSearchInput(RF, FIXTURES);
    const repairs = [{ code: "function reward(obs { return 1 }", error: "check_reward: the code did not compile." }];
    const v = searchView({ ...s, candidates: s.candidates.map((c) => (c.index === 2 ? { ...c, repairs } : c)) });
    expect(v.candidates.find((c) => c.index === 2)!.repairs).toEqual(repairs);
    expect(v.candidates.filter((c) => c.repairs).map((c) => c.index)).toEqual([2]);
  });
});

describe("hexa inspect on searches", () => {
  it("draws a search directory: every candidate with its parent link, its code and the best marked", () => {
    const out = join(root, "rf.html");
    const r = hexa(["inspect", RF, "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/lineage of 1 search\(es\), 6 candidates: rf-agent-cartpole-s0/);
    const data = pageData(readFileSync(out, "utf8"));
    expect(data.kind).toBe("search");
    expect(data.cells).toEqual([]);
    const [s] = data.searches;
    const want = records(RF);
    expect(s!.candidates.map((c) => [c.index, c.parent, c.code])).toEqual(want.map((c) => [c.index, c.parent, c.code]));
    // Every edge parent → child is in the tree exactly once.
    const edges = s!.candidates.flatMap((c) => c.children.map((k) => [c.index, k]));
    expect(edges.sort()).toEqual(
      want
        .filter((c) => c.parent !== null)
        .map((c) => [c.parent, c.index])
        .sort(),
    );
    expect(s!.best).toBe(5);
  });

  it("draws a directory of searches, and the searches a run directory holds beside its episodes", () => {
    let r = hexa(["inspect", FIXTURES, "--out", join(root, "all.html")]);
    expect(r.code, r.stderr).toBe(0);
    let data = pageData(readFileSync(join(root, "all.html"), "utf8"));
    expect(data.searches.map((s) => [s.name, s.candidates.length])).toEqual([
      ["eureka-cartpole-s0", 4],
      ["rf-agent-cartpole-s0", 6],
    ]);

    const name = readdirSync(RUN_V1).find((n) => n.startsWith("v1-fixture"))!;
    const run = join(root, "runs", name);
    cpSync(join(RUN_V1, name), run, { recursive: true });
    cpSync(RF, join(run, "searches", "cartpole-s0"), { recursive: true });
    const t = findTarget(run);
    expect([t.kind, t.searches]).toEqual(["run", [join(run, "searches", "cartpole-s0")]]);
    r = hexa(["inspect", run, "--out", join(root, "run.html"), "--animations", "none"]);
    expect(r.code, r.stderr).toBe(0);
    data = pageData(readFileSync(join(root, "run.html"), "utf8"));
    expect(data.kind).toBe("run");
    expect(data.cells[0]!.runs[0]!.episodes.length).toBeGreaterThan(0);
    expect(data.searches.map((s) => [s.name, s.candidates.length])).toEqual([["searches/cartpole-s0", 6]]);
  });

  it("shows the final scores of a search and of a run (a schema-2 file still read); an unreadable one is a notice", () => {
    const search = join(root, "scored-search");
    cpSync(join(FIXTURES, "eureka-cartpole-s0"), search, { recursive: true });
    writeFinalScores(search, [
      {
        level: "cartpole",
        measure: "F of the final reward; trained at 2,000 env steps, NOT the task's scored budget (300,000)",
        headline: "fitness",
        figures: {
          fitness: { label: "F", mean: 93.5, std: 1.5, ci95: [92, 95], n: 3 },
          normalised: { label: "normalised", mean: null, n: 3, why: "human and sparse rewards are not distinguishable at this budget" },
        },
        perSeed: [
          { seed: 11, fitness: 92 },
          { seed: 12, fitness: 93.5 },
          { seed: 13, fitness: 95 },
        ],
        spent: 4,
        detail: { source: "candidate #3 of eureka" },
      },
    ]);
    let r = hexa(["inspect", search, "--out", join(root, "scored.html")]);
    expect(r.code, r.stderr).toBe(0);
    let html = readFileSync(join(root, "scored.html"), "utf8");
    expect(html).toContain('<section id="final"><h2>Final scores</h2>');
    expect(html).toContain("<td>F 93.50 ± 1.50 [92.00, 95.00] (n 3)</td>");
    expect(html).toContain("<td>normalised n/a (human and sparse rewards are not distinguishable at this budget)</td>");
    expect(html).toContain("NOT the task's scored budget (300,000); 4 trained, from candidate #3 of eureka");
    expect(html).toContain("per seed: 11: 92.00, 12: 93.50, 13: 95.00");

    const name = readdirSync(RUN_V1).find((n) => n.startsWith("v1-fixture"))!;
    const run = join(root, "scored-runs", name);
    cpSync(join(RUN_V1, name), run, { recursive: true });
    cpSync(resolve(import.meta.dirname, "fixtures", "final-scores-v2", "final-scores.json"), join(run, "final-scores.json"));
    r = hexa(["inspect", run, "--out", join(root, "scored-run.html"), "--animations", "none"]);
    expect(r.code, r.stderr).toBe(0);
    html = readFileSync(join(root, "scored-run.html"), "utf8");
    expect(html).toContain("<td>score 12.35 ± 19.05 [1.00, 34.34] (n 3)</td>");
    expect(html).toContain("<td>F 92.97 ± 0.20 [92.80, 93.20] (n 3)</td>");

    writeFileSync(join(run, "final-scores.json"), '{"schemaVersion": 3, "levels": [{"level": "x"}]}');
    r = hexa(["inspect", run, "--out", join(root, "bad-scores.html"), "--animations", "none"]);
    expect(r.code, r.stderr).toBe(0);
    html = readFileSync(join(root, "bad-scores.html"), "utf8");
    expect(html).not.toContain('<section id="final">');
    expect(html).toContain("final-scores.json: not a final-scores file this hexa reads");
  });
});
