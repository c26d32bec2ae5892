import { z } from "zod";
import { parse as parseYaml } from "yaml";
import { ConfigError } from "../../errors.ts";
import { composeRunConfig, parseRunConfig, type FamilySlice, type RunConfig } from "../run-config.ts";
import { valueAt } from "../../util/value-at.ts";
import { objectSchemaFor, unwrapSchema } from "../../util/zod-unwrap.ts";

/**
 * The grid of `hexa compare` (docs/spec/method.md §8): `--grid KEY=V1,V2` axes over dotted config keys, their product as
 * cells, each cell a run config. Keys and values are checked against the composed RunConfig schema before
 * anything runs; a cell the loop refuses (offline × evolving) is kept as skipped with its reason.
 */

export interface GridAxis {
  key: string;
  values: unknown[];
}

/** Keys compare sets itself, or that would unpair the cells. */
const OWNED: Record<string, string> = {
  seed: "compare sets each run's seed (0, 1, 2, … for --runs 3)",
  name: "compare names each cell's runs",
  seeds: "every cell must play the same seeds (pairing); set seeds.offset in the config",
  levels: "every cell must play the same levels (pairing); set levels in the config",
  family: "every cell must play the same levels (pairing); set family in the config",
};

const show = (v: unknown) => JSON.stringify(v);

/** `KEY=V1,V2` → an axis; values are YAML scalars (12 is a number, true a boolean, off2on a string). */
export const parseGridFlag = (flag: string): GridAxis => {
  const eq = flag.indexOf("=");
  const key = eq < 0 ? "" : flag.slice(0, eq).trim();
  if (!key || !/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/.test(key)) {
    throw new ConfigError(`--grid: expected KEY=V1,V2 with a dotted config key (got ${show(flag)}); e.g. --grid init=off2on,online`);
  }
  const texts = flag
    .slice(eq + 1)
    .split(",")
    .map((s) => s.trim());
  if (texts.some((t) => t === ""))
    throw new ConfigError(`--grid ${key}: an empty value (got ${show(flag)}); list values separated by commas, e.g. --grid ${key}=a,b`);
  const values = texts.map((t) => {
    try {
      return parseYaml(t) as unknown;
    } catch {
      return t;
    }
  });
  const dup = texts.find((t, i) => texts.indexOf(t) !== i);
  if (dup !== undefined) throw new ConfigError(`--grid ${key}: ${dup} is listed twice; list each value once`);
  return { key, values };
};

const unwrap = (s: z.ZodType): z.ZodType => unwrapSchema(s, { pipes: true }).schema;

/**
 * Whether a dotted key names a field of the schema, a section read as `base` has it (an LLM role's fields are its
 * provider's); below a record (e.g. price tables) any key is one.
 */
const keyProblem = (schema: z.ZodType, base: Record<string, unknown>, path: readonly string[]): string | undefined => {
  let node = schema;
  for (let i = 0; i < path.length; i++) {
    if (unwrap(node) instanceof z.ZodRecord) return undefined;
    const at = path.slice(0, i).join(".");
    const section = objectSchemaFor(node, valueAt(base, path.slice(0, i)), { pipes: true });
    if (!section) return `${at} is not a section (it takes a value, not sub-keys)`;
    const shape = section.shape as Record<string, z.ZodType>;
    const field = shape[path[i]!];
    if (!field) return `not a config key; known${at ? ` under ${at}` : ""}: ${Object.keys(shape).join(", ")}`;
    node = field;
  }
  return undefined;
};

const setPath = (obj: Record<string, unknown>, path: readonly string[], value: unknown): Record<string, unknown> => {
  const copy = structuredClone(obj);
  let at: Record<string, unknown> = copy;
  for (const k of path.slice(0, -1)) {
    const next = at[k];
    at[k] = next !== null && typeof next === "object" && !Array.isArray(next) ? next : {};
    at = at[k] as Record<string, unknown>;
  }
  at[path.at(-1)!] = value;
  return copy;
};

/** Checks every axis against the schema: a key that is not one, or a value it refuses, names the key. */
export const checkAxes = (base: Record<string, unknown>, axes: readonly GridAxis[], families: readonly FamilySlice[]): void => {
  const schema = composeRunConfig(families);
  const seen = new Set<string>();
  for (const { key, values } of axes) {
    if (seen.has(key)) throw new ConfigError(`--grid ${key}: given twice; list all its values in one --grid ${key}=a,b`);
    seen.add(key);
    const path = key.split(".");
    const owned = OWNED[path[0]!];
    if (owned) throw new ConfigError(`--grid ${key}: cannot be gridded: ${owned}`);
    const problem = keyProblem(schema, base, path);
    if (problem) throw new ConfigError(`--grid ${key}: ${problem}; see hexa run --print-config`);
    for (const v of values) {
      const parsed = schema.safeParse(setPath(base, path, v));
      const issue = parsed.success
        ? undefined
        : parsed.error.issues.find((i) => i.path.join(".").startsWith(key) || key.startsWith(i.path.join(".") || "\u0000"));
      if (issue)
        throw new ConfigError(
          `--grid ${key}: the value ${show(v)} is refused (${issue.message.replace(/^Invalid input: /, "")}); see hexa run --print-config for its type and meaning`,
        );
    }
  }
};

export interface Cell {
  /** c1, c2, … in grid order (the first axis varies slowest). */
  id: string;
  assignments: { key: string; value: unknown }[];
  /** `init=off2on, retriever.topSkills=0` */
  label: string;
  /** The base config with this cell's values, before compare's name and seed. */
  raw: Record<string, unknown>;
}

const cellLabel = (assignments: Cell["assignments"]): string =>
  assignments.map((a) => `${a.key}=${typeof a.value === "string" ? a.value : show(a.value)}`).join(", ") || "(base config)";

/** The product of the axes, in order. */
export const gridCells = (base: Record<string, unknown>, axes: readonly GridAxis[]): Cell[] => {
  const combos = axes.reduce<Cell["assignments"][]>((acc, { key, values }) => acc.flatMap((a) => values.map((value) => [...a, { key, value }])), [[]]);
  return combos.map((assignments, i) => ({
    id: `c${i + 1}`,
    assignments,
    label: cellLabel(assignments),
    raw: assignments.reduce((r, a) => setPath(r, a.key.split("."), a.value), base),
  }));
};

/** A run id prefix for the cell: its id and values, in the characters a run name allows. */
const cellName = (cell: Cell): string =>
  [cell.id, ...cell.assignments.map((a) => `${a.key.split(".").at(-1)}-${String(typeof a.value === "string" ? a.value : show(a.value))}`)]
    .join("_")
    .replace(/[^a-z0-9_+.-]/gi, "")
    .slice(0, 60);

/** Run `run` of a cell: the cell's config named for the cell, differing from the other runs only in `seed`. */
export const runRaw = (cell: Cell, run: number): Record<string, unknown> => ({ ...cell.raw, name: cellName(cell), seed: run });

/** The cell's run-0 config, or why the loop refuses it (the cell is then skipped). */
export const cellConfig = (cell: Cell, families: readonly FamilySlice[]): { cfg: RunConfig } | { skipped: string } => {
  try {
    return { cfg: parseRunConfig(runRaw(cell, 0), cell.label, families) };
  } catch (e) {
    if (e instanceof ConfigError) return { skipped: e.message.startsWith(`${cell.label}: `) ? e.message.slice(cell.label.length + 2) : e.message };
    throw e;
  }
};
