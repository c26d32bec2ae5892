/**
 * Which folders `hexa inspect` shows as a p2p search (p2p-inspect.ts), and what changes as one is written (what
 * `--serve` watches). Cheap and light: node:fs only, one small file read, so the family's module can ask on
 * every `hexa inspect` without loading the page's code.
 */
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** search.json is a few hundred bytes; one larger is not read here (the page's reader refuses it, naming the size). */
const MAX_CLAIM_BYTES = 64 << 10;

/** A p2p search directory: a plain search.json (no link) whose strategy is p2p. */
export const isP2pFolder = (dir: string): boolean => {
  const path = join(dir, "search.json");
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st?.isFile() || st.size > MAX_CLAIM_BYTES) return false;
  try {
    const raw: unknown = JSON.parse(readFileSync(path, "utf8"));
    return typeof raw === "object" && raw !== null && (raw as { strategy?: unknown }).strategy === "p2p";
  } catch {
    return false;
  }
};

/** The lineage files' sizes and times and the entries under trainings/ and judgments/: it changes when an iteration, training or judgment lands. */
export const p2pSignature = (dir: string): string =>
  ["search.json", "plans.jsonl", "iterations.jsonl", "bank-events.jsonl", "trainings", "judgments"]
    .map((name) => {
      const st = lstatSync(join(dir, name), { throwIfNoEntry: false });
      if (!st) return `${name}:-`;
      return `${name}:${st.size}:${st.mtimeMs}${st.isDirectory() ? `:${readdirSync(join(dir, name)).length}` : ""}`;
    })
    .join("|");
