import { readFileSync } from "node:fs";
import type { FamilyRegistry } from "./families.ts";
import type { LevelFamily } from "../family/family.ts";
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
import type { EpisodeRecord } from "../store/run-records.ts";
import { findClaimedDirs, findSearchDirs, findTarget, readRunInput, readSearchInput, type InspectTarget } from "./inspect-load.ts";
import { searchView } from "../report/inspect/search-view.ts";
import { finalScoresView, type FinalScoresView } from "../report/inspect/final-view.ts";
import { readFinalScores } from "../store/final-scores.ts";
import { readBundleRecord, readVerification } from "../store/run-attestations.ts";
import type { AttestationView } from "../report/inspect/attestation-view.ts";
import { writeOutput } from "../cli-kit/write-file.ts";
import type { Animations } from "./inspect-animations.ts";

/** The HTML report of a run, a comparison or a search directory (docs/ARCHITECTURE.md §8), which `hexa inspect`, `hexa run` and `hexa compare` write. */
const require = createRequire(import.meta.url);
/** Memoisation only: the vega bundles and the page script, read once (about 0.8 MB that every report inlines). */
let assets: PageAssets | undefined;
export const pageAssets = (): PageAssets =>
  (assets ??= {
    vega: readFileSync(join(dirname(require.resolve("vega")), "vega.min.js"), "utf8"),
    vegaLite: readFileSync(join(dirname(require.resolve("vega-lite")), "vega-lite.min.js"), "utf8"),
    client: ["client-bank.js", "client-search.js", "client.js"]
      .map((f) => readFileSync(fileURLToPath(new URL(`../report/inspect/${f}`, import.meta.url)), "utf8"))
      .join("\n"),
  });

/** Families without pictures (or not registered here) show their action as text. */
const plainDrawer: EpisodeDrawer = { drawEpisode: () => ({}), renderAction: (a) => JSON.stringify(a) };
/** Memoisation only: a family's drawer, made once per family value (drawers load their engines). */
const drawers = new WeakMap<LevelFamily, EpisodeDrawer>();
export const drawerFor = (families: FamilyRegistry, id: string): EpisodeDrawer => {
  if (!families.ids().includes(id)) return plainDrawer;
  const family = families.get(id);
  if (!drawers.has(family)) drawers.set(family, family.drawer?.() ?? plainDrawer);
  return drawers.get(family)!;
};

/** A report and the runs it was built from (`hexa inspect --serve` rebuilds it as the run writes). */
export interface Built {
  report: Report;
  inputs: RunInput[];
}

const animateWith = (a: Animations): BuildOptions["animate"] => (a === "all" ? () => true : a === "none" ? () => false : lastSolvedOfEachLevel);

export const build = (families: FamilyRegistry, target: InspectTarget, animations: Animations): Built => {
  const inputs: RunInput[] = [];
  const cells = target.cells.map((c) => ({
    name: c.name,
    runs: c.runs.map((path) => {
      const input = readRunInput(families, path);
      inputs.push(input);
      return buildRunView(input, drawerFor(families, input.summary.family), { animate: animateWith(animations) });
    }),
  }));
  // Searched again at every build: a live run may start a search while it is followed.
  const searchDirs = findSearchDirs(target.path);
  const searches = searchDirs.map((p) => searchView(readSearchInput(p, target.path)));
  const { finals, notices } = readFinals([...target.cells.flatMap((c) => c.runs), ...searchDirs], target.path);
  for (const dir of familyPageDirs(families, target.path))
    notices.push(`${relative(target.path, dir)}: a folder with a page of its own (its report.html, written by hexa inspect ${dir})`);
  const attestations = readAttestations(inputs, notices);
  const title =
    target.kind === "run"
      ? inputs[0]!.id
      : target.kind === "search"
        ? searches.length === 1
          ? `${searches[0]!.strategy} on ${searches[0]!.task}: ${target.path}`
          : `searches: ${target.path} (${searches.length} searches)`
        : `comparison: ${target.path} (${cells.length} cells, ${inputs.length} runs)`;
  return { report: buildReport({ kind: target.kind, title, builtAt: new Date().toISOString(), cells, searches, finals, attestations, notices }), inputs };
};

/** The folders under `root` whose page a family draws (a p2p search, a judge folder), not the run's report. */
export const familyPageDirs = (families: FamilyRegistry, root: string): string[] =>
  findClaimedDirs(root, (dir) => families.modules().some((m) => m.inspect?.claims(dir)));

/** Writes each such folder's own page as its report.html; returns one line per page for the terminal. */
export const writeFamilyPages = async (families: FamilyRegistry, root: string): Promise<string[]> => {
  const lines: string[] = [];
  for (const dir of familyPageDirs(families, root)) {
    const own = families.modules().find((m) => m.inspect?.claims(dir))!.inspect!;
    const page = await own.page(dir);
    const out = join(dir, "report.html");
    writeOutput("out", out, page.html);
    lines.push(`wrote ${out} (${kib(Buffer.byteLength(page.html))}: ${page.summary})`);
  }
  return lines;
};

/** Each run's verification.json and bundle.json, where it has them; a damaged one is a notice. */
const readAttestations = (runs: readonly RunInput[], notices: string[]): AttestationView[] =>
  runs.flatMap((r) => {
    const verification = readVerification(r.path);
    const bundle = readBundleRecord(r.path);
    for (const problem of [verification.problem, bundle.problem]) if (problem) notices.push(`${r.id}: ${problem}`);
    if (!verification.record && !bundle.record) return [];
    return [{ run: r.id, ...(verification.record ? { verification: verification.record } : {}), ...(bundle.record ? { bundle: bundle.record } : {}) }];
  });

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

export const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;

/** Builds the report of a run or a comparison directory into `out` and returns its path. */
export const writeReport = (families: FamilyRegistry, target: string, out: string): string => {
  writeOutput("out", out, renderReportHtml(build(families, findTarget(target), "last").report, pageAssets(), { live: false }));
  return out;
};

/** Makes the animations `writeRunReport` embeds for these episodes of a run ahead, through the family's drawer. */
export const prepareRunAnimations = (families: FamilyRegistry, family: string, episodes: readonly EpisodeRecord[]): Promise<void> =>
  drawerFor(families, family).prepareAnimations?.(episodes.filter((e) => lastSolvedOfEachLevel(e, episodes))) ?? Promise.resolve();

/** Builds `RUN_DIR/report.html` for a finished run and returns its path (hexa run calls this at the end). */
export const writeRunReport = (families: FamilyRegistry, runDir: string): string => writeReport(families, runDir, join(resolve(runDir), "report.html"));
