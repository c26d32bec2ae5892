import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";

/** `from "./x"`, `import("./x")`, `import "./x"`, and an asset read at run time: `new URL("./x", import.meta.url)`. */
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bnew\s+URL\s*\(\s*(?=["'][^"']+["']\s*,\s*import\.meta\.url\b))["'](\.{1,2}\/[^"']+)["']/g;

/**
 * The entry file and every source file it reaches through relative imports, type-only ones included, and the
 * .js/.ts assets it reads through `new URL(…, import.meta.url)` (a script evaluated elsewhere, say), sorted.
 */
export const sourceClosure = (entry: string): string[] => {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, "utf8").matchAll(RELATIVE_IMPORT)) {
      const target = resolve(dirname(file), m[1]!);
      if (/\.(ts|mts|js|mjs)$/.test(target)) visit(target);
    }
  };
  visit(resolve(entry));
  return [...seen].sort();
};

/** A short hash of the contents of `entry`'s source closure, named relative to `root`: it changes with any file the entry's behaviour can depend on. */
export const sourceClosureHash = (entry: string, root: string): string => {
  const h = createHash("sha256");
  for (const f of sourceClosure(entry)) h.update(`${relative(root, f)}\n`).update(readFileSync(f));
  return h.digest("hex").slice(0, 12);
};
