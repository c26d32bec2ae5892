import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * docs/ARCHITECTURE.md §1 says what each folder may import, and .dependency-cruiser.cjs enforces one `layer-…`
 * rule per row. A row edited without its rule (or the reverse) would leave the page saying what is not checked;
 * this holds the two to the same folders.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

interface Layer {
  allowed: string[];
  typesOnly: string[];
}

interface Rule {
  name: string;
  from: { path: string };
  to: { path?: string | string[]; pathNot?: string | string[] };
}

const list = (x: string | string[] | undefined): string[] => (x === undefined ? [] : Array.isArray(x) ? x : [x]);
const folder = (path: string): string => path.replace(/^\^/, "").replace(/\/$/, "");
const sorted = (l: Layer): Layer => ({ allowed: [...l.allowed].sort(), typesOnly: [...l.typesOnly].sort() });

/** The layer rules of .dependency-cruiser.cjs, by folder: what each may import, and what only as types. */
const rulesByFolder = (): Map<string, Layer> => {
  const config = createRequire(import.meta.url)(resolve(ROOT, ".dependency-cruiser.cjs")) as { forbidden: Rule[] };
  const layers = new Map<string, Layer>();
  for (const rule of config.forbidden.filter((r) => r.name.startsWith("layer-") && !r.name.endsWith("-types"))) {
    const own = folder(rule.from.path);
    const named = list(rule.to.pathNot)
      .map(folder)
      .filter((p) => p !== own && p !== "src/errors\\.ts$");
    const typesRule = config.forbidden.find((r) => r.name === `${rule.name}-types`);
    const typesOnly = list(typesRule?.to.path).map(folder);
    layers.set(own, { allowed: named.filter((p) => !typesOnly.includes(p)), typesOnly });
  }
  return layers;
};

/** One "may import" cell: `a`, `b` types, `c` and `d` types, `e` (why) …; "types only: …" makes every folder of the cell types-only. */
const parseCell = (cell: string): Layer => {
  const all = cell.startsWith("types only:");
  const items = cell
    .replace(/^types only:/, "")
    .replace(/\([^)]*\)/g, "")
    .split(",");
  const layer: Layer = { allowed: [], typesOnly: [] };
  for (const item of items) {
    const paths = [...item.matchAll(/`([^`]+)`/g)].map((m) => folder(m[1] ?? ""));
    (all || /\btypes\s*$/.test(item) ? layer.typesOnly : layer.allowed).push(...paths);
  }
  return layer;
};

/** §1's rows whose folder a layer rule covers (the rule's folder is the row's or a parent of it): folder → cell. */
const tableRows = (): Map<string, string> => {
  const page = readFileSync(resolve(ROOT, "docs/ARCHITECTURE.md"), "utf8");
  const section = page.slice(page.indexOf("## §1 Layers"), page.indexOf("## §2"));
  const rows = new Map<string, string>();
  for (const [, name, cell] of section.matchAll(/^\| `([^`]+)`[^|]*\|[^|]*\|\s*(.*?)\s*\|$/gm)) rows.set(folder(name ?? ""), cell ?? "");
  return rows;
};

describe("docs/ARCHITECTURE.md §1 and .dependency-cruiser.cjs", () => {
  const rules = rulesByFolder();
  const rows = tableRows();
  const rowOf = (ruleFolder: string) => [...rows.keys()].find((row) => row === ruleFolder || row.startsWith(`${ruleFolder}/`));

  it("found the layer rules and the table", () => {
    expect(rules.size).toBeGreaterThanOrEqual(10);
    expect(rows.size).toBeGreaterThanOrEqual(10);
  });

  it.each([...rules.keys()])("%s: the table's row names what its rule allows", (ruleFolder) => {
    const row = rowOf(ruleFolder);
    expect(row, `no row of §1 for ${ruleFolder}`).toBeDefined();
    expect(sorted(parseCell(rows.get(row!)!))).toEqual(sorted(rules.get(ruleFolder)!));
  });

  it("every row that lists folders has a rule", () => {
    const listed = [...rows].filter(([, cell]) => /^(`src\/[a-z-]+`|`agents\/`|`tools\/`|types only:|nothing)/.test(cell) && !/\bbut\b/.test(cell));
    const unruled = listed.map(([row]) => row).filter((row) => ![...rules.keys()].some((r) => row === r || row.startsWith(`${r}/`)));
    expect(unruled).toEqual([]);
  });
});
