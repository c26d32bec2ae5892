import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "../errors.ts";
import { renderReportHtml, type PageAssets } from "../report/inspect/html.ts";
import {
  buildReport,
  buildRunView,
  lastSolvedOfEachLevel,
  type BuildOptions,
  type EpisodeDrawer,
  type Report,
  type RunInput,
} from "../report/inspect/model.ts";
import { defineCommand } from "../family/define-command.ts";
import { intFlag } from "./flags.ts";
import { familyIds, getFamily } from "./families.ts";
import { findSearchDirs, findTarget, readRunInput, readSearchInput, type InspectTarget } from "./inspect-load.ts";
import { serve, type Built } from "./inspect-serve.ts";
import { searchView } from "../report/inspect/search-view.ts";
import { finalScoresView, type FinalScoresView } from "../report/inspect/final-view.ts";
import { readFinalScores } from "../store/final-scores.ts";
import { writeOutput } from "./write-file.ts";

/**
 * `hexa inspect RUN_DIR|COMPARE_DIR|SEARCH_DIR` (docs/ARCHITECTURE.md §8): a self-contained HTML report of a run or a
 * comparison, with the lineage of every reward search (candidates.jsonl) found in it, or with --serve the same
 * page on 127.0.0.1, following the run as it writes.
 */

const require = createRequire(import.meta.url);
let assets: PageAssets | undefined;
/** The vega bundles and the page script, read once: about 0.8 MB that every report inlines. */
const pageAssets = (): PageAssets =>
  (assets ??= {
    vega: readFileSync(join(dirname(require.resolve("vega")), "vega.min.js"), "utf8"),
    vegaLite: readFileSync(join(dirname(require.resolve("vega-lite")), "vega-lite.min.js"), "utf8"),
    client: ["client-bank.js", "client-search.js", "client.js"]
      .map((f) => readFileSync(fileURLToPath(new URL(`../report/inspect/${f}`, import.meta.url)), "utf8"))
      .join("\n"),
  });

/** Families without pictures (or not registered here) show their action as text. */
const plainDrawer: EpisodeDrawer = { drawEpisode: () => ({}), renderAction: (a) => JSON.stringify(a) };
const drawers = new Map<string, EpisodeDrawer>();
const drawerFor = (family: string): EpisodeDrawer => {
  if (!drawers.has(family)) drawers.set(family, (familyIds().includes(family) ? getFamily(family).drawer?.() : undefined) ?? plainDrawer);
  return drawers.get(family)!;
};

const ANIMATIONS = ["last", "all", "none"] as const;
type Animations = (typeof ANIMATIONS)[number];
const animateWith = (a: Animations): BuildOptions["animate"] => (a === "all" ? () => true : a === "none" ? () => false : lastSolvedOfEachLevel);

const build = (target: InspectTarget, animations: Animations): Built => {
  const inputs: RunInput[] = [];
  const cells = target.cells.map((c) => ({
    name: c.name,
    runs: c.runs.map((path) => {
      const input = readRunInput(path);
      inputs.push(input);
      return buildRunView(input, drawerFor(input.summary.family), { animate: animateWith(animations) });
    }),
  }));
  // Searched again at every build: a live run may start a search while it is followed.
  const searchDirs = findSearchDirs(target.path);
  const searches = searchDirs.map((p) => searchView(readSearchInput(p, target.path)));
  const { finals, notices } = readFinals([...target.cells.flatMap((c) => c.runs), ...searchDirs], target.path);
  const title =
    target.kind === "run"
      ? inputs[0]!.id
      : target.kind === "search"
        ? searches.length === 1
          ? `${searches[0]!.strategy} on ${searches[0]!.task}: ${target.path}`
          : `reward searches: ${target.path} (${searches.length} searches)`
        : `comparison: ${target.path} (${cells.length} cells, ${inputs.length} runs)`;
  return { report: buildReport({ kind: target.kind, title, builtAt: new Date().toISOString(), cells, searches, finals, notices }), inputs };
};

/** The final scores of each directory that has them; a file this hexa cannot read is a notice, not a failed report. */
const readFinals = (dirs: readonly string[], root: string): { finals: FinalScoresView[]; notices: string[] } => {
  const finals: FinalScoresView[] = [];
  const notices: string[] = [];
  for (const dir of new Set(dirs)) {
    try {
      const scores = readFinalScores(dir);
      if (scores) finals.push(finalScoresView(relative(root, dir) || basename(dir), scores.levels));
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      notices.push(e.message);
    }
  }
  return { finals, notices };
};

const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;

/** Builds the report of a run or a comparison directory into `out` and returns its path. */
export const writeReport = (target: string, out: string): string => {
  writeOutput("out", out, renderReportHtml(build(findTarget(target), "last").report, pageAssets(), { live: false }));
  return out;
};

/** Builds `RUN_DIR/report.html` for a finished run and returns its path (hexa run calls this at the end). */
export const writeRunReport = (runDir: string): string => writeReport(runDir, join(resolve(runDir), "report.html"));

export const inspectCommand = defineCommand({
  command: "inspect <dir>",
  describe:
    "a self-contained HTML report of a run or a comparison (learning curves, the bank over time, every episode) and of reward searches (the lineage of every candidate); --serve follows a live run",
  builder: (y) =>
    y
      .positional("dir", {
        type: "string",
        demandOption: true,
        describe: "a run directory (runs/<id>), a directory of runs to compare, or a hexa search directory (or a directory of them)",
      })
      .option("out", { type: "string", describe: "where to write the HTML (default DIR/report.html)" })
      .option("serve", { type: "boolean", default: false, describe: "serve the report on 127.0.0.1 and refresh it as the run writes" })
      .option("port", { type: "string", default: 8787, coerce: intFlag("port", 0, 65535), describe: "port for --serve (0: any free port)" })
      .option("animations", {
        type: "string",
        choices: ANIMATIONS,
        default: "last" as Animations,
        describe: "rollout GIFs embedded in the file: the last solved episode of each level, all (50–200 kB each), or none; --serve makes any on demand",
      }),
  handler: async (argv) => {
    const target = findTarget(argv.dir);
    const animations = argv.animations;
    if (argv.serve) {
      if (argv.out !== undefined) throw new ConfigError("--out: not used with --serve (the page is served, not written); drop one of them");
      const page = (report: Report) => renderReportHtml(report, pageAssets(), { live: true });
      await serve({ target, build: () => build(target, animations), page, drawerFor }, argv.port);
      return;
    }
    const t0 = performance.now();
    const { report } = build(target, animations);
    const html = renderReportHtml(report, pageAssets(), { live: false });
    const ms = performance.now() - t0;
    const out = argv.out ?? join(target.path, "report.html");
    writeOutput("out", out, html);
    const episodes = report.cells.flatMap((c) => c.runs).reduce((n, r) => n + r.episodes.length, 0);
    const gifs = report.cells.flatMap((c) => c.runs).reduce((n, r) => n + r.episodes.filter((e) => e.animation).length, 0);
    process.stdout.write(`wrote ${out} (${kib(Buffer.byteLength(html))}: ${episodes} episodes, ${gifs} animations; built in ${(ms / 1000).toFixed(2)} s)\n`);
    if (report.searches.length) {
      const n = report.searches.reduce((k, s) => k + s.candidates.length, 0);
      process.stdout.write(`lineage of ${report.searches.length} reward search(es), ${n} candidates: ${report.searches.map((s) => s.name).join(", ")}\n`);
    }
    report.notices.forEach((n) => process.stdout.write(`notice: ${n}\n`));
  },
});
