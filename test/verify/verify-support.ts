import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";

/** The one run directory a runs folder holds. */
export const runIn = (runs: string): string => join(runs, readdirSync(runs).find((n) => !n.startsWith("."))!);

/** A copy of a run under `parent`, under its own name (a run's id is its directory's name). */
export const copyRun = (run: string, parent: string): string => {
  mkdirSync(parent, { recursive: true });
  const copy = join(parent, basename(run));
  cpSync(run, copy, { recursive: true });
  return copy;
};

/** Rewrites line `index` (0-based) of a JSONL file with `edit`. */
export const editLine = (path: string, index: number, edit: (line: Record<string, any>) => void): void => {
  const lines = readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim());
  const line = JSON.parse(lines[index]!) as Record<string, any>;
  edit(line);
  lines[index] = JSON.stringify(line);
  writeFileSync(path, `${lines.join("\n")}\n`);
};

/** `hexa search` at a tiny budget: two candidates of 2,048 env steps, a final score of two fresh seeds. */
export const searchArgs = (out: string, cache: string, ...more: string[]): string[] => [
  "search",
  "cartpole",
  "--method",
  "eureka",
  "--budget",
  "2",
  "--train-steps",
  "2048",
  "--final-steps",
  "2048",
  "--final-trainings",
  "2",
  "--out",
  out,
  "--trainer-cache",
  cache,
  ...more,
];
