import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** `from "./x"`, `import("./x")`, `import "./x"`, and an asset read at run time: `new URL("./x", import.meta.url)`. */
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bnew\s+URL\s*\(\s*(?=["'][^"']+["']\s*,\s*import\.meta\.url\b))["'](\.{1,2}\/[^"']+)["']/g;
/** `from "pkg"`, `import("pkg/sub")`, `import "@scope/pkg"`: an installed package (node: builtins excluded). */
const PACKAGE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](?!\.|node:)((?:@[\w.-]+\/)?[\w.-]+)(?:\/[^"']*)?["']/g;
const CODE = /\.(ts|mts|js|mjs)$/;

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));

/**
 * The entry file and every source file it reaches through relative imports, type-only ones included, and the
 * assets it reads through `new URL(…, import.meta.url)`, sorted: a .js/.ts asset (a script evaluated elsewhere,
 * say) is followed like an import, any other file is taken as it is, and a folder below the file (`"./assets/"`)
 * brings every file in it. A folder above the file (`"../"`, the repository root) is a place, not an asset.
 */
export const sourceClosure = (entry: string): string[] => {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!CODE.test(file)) return;
    for (const m of readFileSync(file, "utf8").matchAll(RELATIVE_IMPORT)) {
      const target = resolve(dirname(file), m[1]!);
      if (m[1]!.endsWith("/")) {
        if (m[1]!.startsWith("./")) for (const f of filesUnder(target)) visit(f);
      } else if (CODE.test(target) || (m[0].includes("URL") && existsSync(target))) visit(target);
    }
  };
  visit(resolve(entry));
  return [...seen].sort();
};

/** The installed packages `files` import, as `name@version` from `root`/node_modules, sorted. */
export const importedPackages = (files: readonly string[], root: string): string[] => {
  const names = new Set<string>();
  for (const f of files.filter((f) => CODE.test(f))) for (const m of readFileSync(f, "utf8").matchAll(PACKAGE_IMPORT)) names.add(m[1]!);
  return [...names]
    .flatMap((name) => {
      const manifest = join(root, "node_modules", name, "package.json");
      return existsSync(manifest) ? [`${name}@${(JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version}`] : [];
    })
    .sort();
};

/**
 * A short hash of the contents of `entry`'s source closure, named relative to `root`, and of the versions of the
 * packages it imports: it changes with any file or library the entry's behaviour can depend on.
 */
export const sourceClosureHash = (entry: string, root: string): string => {
  const h = createHash("sha256");
  const files = sourceClosure(entry);
  for (const f of files) h.update(`${relative(root, f)}\n`).update(readFileSync(f));
  for (const p of importedPackages(files, root)) h.update(`${p}\n`);
  return h.digest("hex").slice(0, 12);
};
