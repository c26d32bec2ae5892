// How bin/ starts hexa: the compiled JavaScript under dist/ (scripts/build.mjs, run by npm ci's `prepare`) while it
// is newer than every TypeScript source; otherwise the sources through tsx's loader, so that an edit never runs
// stale code. A HEXA_FAMILIES plugin written in TypeScript also runs with the sources: the plugin and hexa then
// share one copy of each hexa module.
import { readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const STAMP = `${ROOT}dist/.built`;

/**
 * Whether dist/ is built and newer than every source file and folder its stamp lists (a few hundred stats, the
 * largest part of a start; paths are joined by hand, as path.join's normalising doubles its cost).
 */
export const distIsFresh = () => {
  try {
    const built = statSync(STAMP).mtimeMs;
    const { sources, dirs } = JSON.parse(readFileSync(STAMP, "utf8"));
    for (const list of [sources, dirs]) for (const p of list) if (statSync(ROOT + p).mtimeMs > built) return false;
    return true;
  } catch {
    return false; // no build, an unreadable stamp, or a source deleted since
  }
};

const pluginInTypeScript = () => (process.env.HEXA_FAMILIES ?? "").split(":").some((p) => /\.[mc]?ts$/.test(p));

/** Imports the module of hexa's source tree at `source` (e.g. "src/cli/main.ts"), compiled or through tsx. */
export const launch = async (source) => {
  if (!pluginInTypeScript() && distIsFresh()) {
    return import(new URL(`../dist/${source.replace(/\.ts$/, ".js")}`, import.meta.url).href);
  }
  const { register } = await import("tsx/esm/api");
  register();
  return import(new URL(`../${source}`, import.meta.url).href);
};
