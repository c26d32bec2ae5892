/**
 * Prompt-to-Policy's decomposition notation (its prompts/judge_author.py: the model writes `Structure:`,
 * `Legend:`, `Scoring Criteria:` and `Definitions:` sections), read into the criteria tree of criteria.ts:
 *
 *   Structure:            Legend:                  Scoring Criteria:
 *   1 -> 2                1. Locomotion            1.1 Forward Progress
 *   1 = (1.1, 1.2)          1.1 Forward Progress       metric: mean(vx) over all steps
 *   2 = 2.1 -> 2.2          ...                        threshold: >= 0.5 m/s
 *                                                      partial: linear from 0.0 to threshold
 *
 * `a -> b` is sequential, `(a, b)` independent; a line `1 = …` expands node 1 into a group. hexa adds two
 * optional lines per leaf: `weight: <number>` and `must keep: yes`.
 */
import { ModelOutputError } from "../../../src/errors.ts";
import { type CriteriaTree, type NodeOrder, parseCriteria } from "./criteria.ts";

const SECTIONS = ["structure", "legend", "scoring criteria", "definitions"] as const;
type Section = (typeof SECTIONS)[number];
const MAX_TEXT = 64 * 1024;

const ID = String.raw`\d+(?:\.\d+)*`;
const HEADER = /^[#*\s]*(structure|legend|scoring criteria|definitions)\s*:?[*\s]*$/i;
const NAMED = new RegExp(String.raw`^\s*(${ID})\.?\s+(.+?)\s*$`);
const FIELD = /^\s*(metric|threshold|partial|weight|must[ _-]?keep)\s*:\s*(.*)$/i;

interface Expr {
  order: NodeOrder;
  ids: string[];
}

/** Split the text into its sections' lines (``` fences dropped); text before the first header is ignored. */
function sections(text: string): Map<Section, string[]> {
  const out = new Map<Section, string[]>();
  let current: string[] | null = null;
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*```/.test(line)) continue;
    const h = HEADER.exec(line);
    if (h) out.set(h[1]!.toLowerCase() as Section, (current = []));
    else current?.push(line);
  }
  return out;
}

/** One structure expression: `1 -> 2 -> 3`, `(1, 2)`, `1, 2` or a single id. */
function parseExpr(text: string, where: string): Expr {
  const t = text.trim();
  const seq = t.split("->").map((s) => s.trim());
  if (seq.length > 1) {
    if (seq.some((s) => !new RegExp(`^${ID}$`).test(s))) {
      throw new ModelOutputError(
        `criteria notation: ${where}: ${JSON.stringify(t)} mixes -> with groups; give each group its own id and expand it on its own line (2 = (2.1, 2.2))`,
      );
    }
    return { order: "sequential", ids: seq };
  }
  const inner = /^\((.*)\)$/.exec(t)?.[1] ?? t;
  const ids = inner.split(",").map((s) => s.trim());
  if (ids.some((s) => !new RegExp(`^${ID}$`).test(s))) {
    throw new ModelOutputError(`criteria notation: ${where}: ${JSON.stringify(t)} is not a structure (write 1 -> 2 for sequential, (1, 2) for independent)`);
  }
  return { order: "independent", ids };
}

function structureOf(lines: readonly string[]): { top: Expr; expansions: Map<string, Expr> } {
  let top: Expr | null = null;
  const expansions = new Map<string, Expr>();
  for (const line of lines.filter((l) => l.trim() !== "")) {
    const m = new RegExp(`^\\s*(${ID})\\s*=\\s*(.+)$`).exec(line);
    if (m) {
      if (expansions.has(m[1]!)) throw new ModelOutputError(`criteria notation: Structure: ${m[1]} is expanded twice; expand each group once`);
      expansions.set(m[1]!, parseExpr(m[2]!, `Structure line ${JSON.stringify(line.trim())}`));
    } else if (top === null) top = parseExpr(line, "Structure's first line");
    else
      throw new ModelOutputError(
        `criteria notation: Structure: a second top-level line ${JSON.stringify(line.trim())}; write one top-level line, then one "<id> = …" line per group`,
      );
  }
  if (top === null) throw new ModelOutputError("criteria notation: Structure: no top-level line; write e.g. 1 -> 2 or (1, 2)");
  return { top, expansions };
}

function legendOf(lines: readonly string[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const line of lines) {
    const m = NAMED.exec(line);
    if (m) names.set(m[1]!, m[2]!);
  }
  return names;
}

type LeafFields = Record<string, string>;

function criteriaOf(lines: readonly string[]): Map<string, LeafFields> {
  const leaves = new Map<string, LeafFields>();
  let current: LeafFields | null = null;
  let lastKey: string | null = null;
  for (const line of lines) {
    const f = FIELD.exec(line);
    const named = f ? null : NAMED.exec(line);
    if (named) {
      leaves.set(named[1]!, (current = { name: named[2]! }));
      lastKey = null;
    } else if (f && current) {
      lastKey = f[1]!.toLowerCase().replace(/[ _-]/g, "");
      current[lastKey] = f[2]!.trim();
    } else if (current && lastKey && line.trim() !== "") current[lastKey] = `${current[lastKey]} ${line.trim()}`.trim();
  }
  return leaves;
}

const weightOf = (f: LeafFields, id: string): number | undefined => {
  if (f.weight === undefined) return undefined;
  const w = Number(f.weight);
  if (!Number.isFinite(w)) throw new ModelOutputError(`criteria notation: Scoring Criteria ${id}: weight ${JSON.stringify(f.weight)} is not a number`);
  return w;
};

/** Parse P2P's notation into a checked criteria tree (errors name the section and the id). */
export function parseNotation(text: string): CriteriaTree {
  if (text.length > MAX_TEXT) throw new ModelOutputError(`criteria notation: ${text.length} characters, more than ${MAX_TEXT}; shorten it`);
  const s = sections(text);
  const { top, expansions } = structureOf(s.get("structure") ?? []);
  const names = legendOf(s.get("legend") ?? []);
  const criteria = criteriaOf(s.get("scoring criteria") ?? []);
  const used = new Set<string>();
  const build = (id: string): object => {
    if (used.has(id)) throw new ModelOutputError(`criteria notation: Structure: ${id} appears twice; each node has one place in the tree`);
    used.add(id);
    const group = expansions.get(id);
    const f = criteria.get(id);
    const name = names.get(id) ?? f?.name ?? `sub-task ${id}`;
    if (group) return { id, name, order: group.order, children: group.ids.map(build) };
    if (!f) throw new ModelOutputError(`criteria notation: Scoring Criteria has no entry for leaf ${id}; give it metric, threshold and partial lines`);
    for (const key of ["metric", "threshold", "partial"]) {
      if (!f[key]) throw new ModelOutputError(`criteria notation: Scoring Criteria ${id}: no ${key} line; write "${key}: …" under it`);
    }
    const weight = weightOf(f, id);
    return {
      id,
      name,
      metric: f.metric,
      threshold: f.threshold,
      partial: f.partial,
      ...(weight !== undefined ? { weight } : {}),
      mustKeep: /^(yes|true|1)$/i.test(f.mustkeep ?? ""),
    };
  };
  const tree = { order: top.order, children: top.ids.map(build), definitions: (s.get("definitions") ?? []).join("\n").trim() || undefined };
  const stray = [...expansions.keys()].filter((id) => !used.has(id));
  if (stray.length > 0)
    throw new ModelOutputError(`criteria notation: Structure expands ${stray.join(", ")}, which the tree above does not reach; list it in its parent`);
  return parseCriteria(tree);
}
