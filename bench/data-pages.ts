/**
 * Benchmark pages that are a pure function of committed data (docs/benchmarks/README.md): the bench script writes
 * its runs' raw results under docs/benchmarks/data/ and the page is rendered from them alone, so anyone can
 * re-derive every number on it (test/bench-pages.int.test.ts renders each again and compares).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { PAGES_DIR, ROOT } from "./page.ts";
import { DistributedData, renderDistributedPage } from "./distributed-page.ts";
import { CalibrationData, renderCalibrationPage } from "./judge-calibration-page.ts";
import { BENCH_PAGES, type BenchPageName } from "./pages.ts";
import { renderStrategiesPage, StrategiesData } from "./strategies-page.ts";

export const DATA_DIR = join(PAGES_DIR, "data");

interface DataPage {
  /** The data file, under DATA_DIR. */
  file: string;
  /** The page from the data file's text (parsed and checked here: the file is an input like any other). */
  render: (text: string, file: string) => string;
}

export const DATA_PAGES: Partial<Record<BenchPageName, DataPage>> = {
  distributed: {
    file: "distributed.json",
    render: (text, file) => renderDistributedPage(DistributedData.parse(JSON.parse(text)), BENCH_PAGES.distributed.title, relative(PAGES_DIR, file)),
  },
  "judge-calibration": {
    file: "judge-calibration.json",
    render: (text, file) => renderCalibrationPage(CalibrationData.parse(JSON.parse(text)), BENCH_PAGES["judge-calibration"].title, relative(PAGES_DIR, file)),
  },
  "reward-search-strategies": {
    file: "reward-search-strategies.json",
    render: (text, file) =>
      renderStrategiesPage(StrategiesData.parse(JSON.parse(text)), BENCH_PAGES["reward-search-strategies"].title, relative(PAGES_DIR, file)),
  },
};

/** The page `name` rendered from its committed data file. */
export const renderDataPage = (name: BenchPageName): string => {
  const page = DATA_PAGES[name];
  if (!page) throw new Error(`${name}: not a data page; the data pages are ${Object.keys(DATA_PAGES).join(", ")}`);
  const file = join(DATA_DIR, page.file);
  return page.render(readFileSync(file, "utf8"), file);
};

/** Writes `data` as the page's data file, then the page rendered from it; returns the page's path. */
export const writeDataPage = (name: BenchPageName, data: unknown): string => {
  const page = DATA_PAGES[name]!;
  writeFileSync(join(DATA_DIR, page.file), `${JSON.stringify(data, null, 1)}\n`);
  const out = join(PAGES_DIR, `${name}.md`);
  writeFileSync(out, renderDataPage(name));
  process.stderr.write(`data and page written: ${relative(ROOT, join(DATA_DIR, page.file))}, ${relative(ROOT, out)}\n`);
  return out;
};
