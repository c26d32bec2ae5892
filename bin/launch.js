// How bin/ starts hexa: the compiled JavaScript under dist/ (scripts/build.mjs, run by npm ci's `prepare`) while it
// is newer than every TypeScript source; otherwise the sources through tsx's loader, so that an edit never runs
// stale code. A HEXA_FAMILIES plugin written in TypeScript also runs with the sources: the plugin and hexa then
// share one copy of each hexa module.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TREES = ["src", "agents", "families"];

const builtAt = () => {
  try {
    return statSync(join(ROOT, "dist", ".built")).mtimeMs;
  } catch {
    return undefined;
  }
};

const newestSource = () => {
  let newest = 0;
  for (const tree of TREES) {
    for (const f of readdirSync(join(ROOT, tree), { recursive: true })) {
      if (String(f).endsWith(".ts")) newest = Math.max(newest, statSync(join(ROOT, tree, String(f))).mtimeMs);
    }
  }
  return newest;
};

const pluginInTypeScript = () => (process.env.HEXA_FAMILIES ?? "").split(":").some((p) => /\.[mc]?ts$/.test(p));

/** Whether dist/ is built and newer than every source file (what bin/ runs when no TypeScript plugin is named). */
export const distIsFresh = () => {
  const built = builtAt();
  return built !== undefined && newestSource() <= built;
};

/** Imports the module of hexa's source tree at `source` (e.g. "src/cli/main.ts"), compiled or through tsx. */
export const launch = async (source) => {
  if (!pluginInTypeScript() && distIsFresh()) {
    return import(new URL(join("dist", source.replace(/\.ts$/, ".js")), new URL("..", import.meta.url)).href);
  }
  const { register } = await import("tsx/esm/api");
  register();
  return import(new URL(join("..", source), import.meta.url).href);
};
