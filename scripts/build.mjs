#!/usr/bin/env node
// Compiles hexa's TypeScript to JavaScript under dist/ (CONTRIBUTING.md, "The build"): one .js for each .ts of
// src/, agents/, tools/ and levels/ at the same path under dist/, relative imports renamed to .js, packages left as
// imports. Every `import.meta.url` reads as the source file's URL, so the paths a module derives from its own
// place (assets, certified seeds, the repository root, the trainer's source hash) stay the source tree's; code
// started in a worker or child process goes through src/util/runnable-module.ts. The packages every command
// loads (yargs, zod) are bundled once into dist/vendor/ and imported from there: loading one file instead of
// ~120 halves what they add to a start. dist/.built is written last: bin/ runs dist/ only while that stamp is
// newer than every source file and folder it lists. The PPO kernels' WebAssembly (AssemblyScript sources, *.as.ts)
// is compiled into dist/wasm/ by the module that loads it, under a name keyed by its source's hash; a build keeps
// the one that is current and drops the rest.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIST = join(ROOT, "dist");
const TREES = ["src", "agents", "tools", "levels"];

const sources = TREES.flatMap((tree) =>
  readdirSync(join(ROOT, tree), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.endsWith(".d.ts"))
    .map((f) => join(tree, f)),
);
const isWasmSource = (f) => f.endsWith(".as.ts");
const WASM_LOADER = "levels/reward-search/trainer/wasm/kernels.js";

/** Package specifier → its bundle under dist/vendor/. */
const VENDORED = { zod: "zod.js", yargs: "yargs.js", "yargs/helpers": "yargs-helpers.js" };

const relativeImportsAsJs = {
  name: "relative-imports-as-js",
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (a) => (a.kind === "entry-point" ? undefined : { path: a.path.replace(/\.ts$/, ".js"), external: true }));
    b.onResolve({ filter: /^[^.]/ }, (a) => {
      if (a.kind === "entry-point") return undefined;
      const vendored = VENDORED[a.path];
      if (!vendored) return { external: true };
      const from = dirname(join(DIST, relative(ROOT, a.importer)));
      const path = relative(from, join(DIST, "vendor", vendored))
        .split("\\")
        .join("/");
      return { path: path.startsWith(".") ? path : `./${path}`, external: true };
    });
  },
};

// yargs finds its message texts from its own file's place; in the bundle that place is dist/vendor/, so its
// import.meta.url is pinned to the file it came from.
const packageFileUrls = {
  name: "package-file-urls",
  setup(b) {
    b.onLoad({ filter: /node_modules\/.*\.m?js$/ }, async (a) => {
      const text = readFileSync(a.path, "utf8");
      return text.includes("import.meta.url")
        ? { contents: text.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(a.path).href)), loader: "js" }
        : undefined;
    });
  },
};

// string-width (yargs' help layout) builds an Intl.Segmenter and Unicode property regexes when it is imported: a
// quarter of `hexa --version`'s start, though only help text ever measures a string. Each such top-level constant
// becomes a function that builds it on first use. Versions before 8 also segment plain ASCII, where the width is
// the length (as string-width 8's own fast path returns): that is given the same fast path, so help text in
// ASCII never builds them.
const ASCII_FAST_PATH = 'if (typeof string === "string" && /^[\\u0020-\\u007E]*$/.test(string)) return string.length;';
const lazyUnicodeTables = {
  name: "lazy-unicode-tables",
  setup(b) {
    b.onLoad({ filter: /node_modules\/(.+\/)?string-width\/index\.js$/ }, (a) => {
      const lines = readFileSync(a.path, "utf8").split("\n");
      const tables = lines.flatMap((line, i) => {
        const m = /^const (\w+) = (new Intl\.Segmenter\(\)|\/.*\\p\{.*\/[a-z]*);$/.exec(line);
        return m ? [{ i, name: m[1], value: m[2] }] : [];
      });
      if (tables.length === 0) throw new Error(`${a.path}: no top-level Intl.Segmenter or \\p{…} regex to defer; update scripts/build.mjs`);
      for (const { i, name, value } of tables) {
        const use = new RegExp(`(?<![\\w$.])${name}(?![\\w$])`, "g");
        for (let k = 0; k < lines.length; k++) if (k !== i) lines[k] = lines[k].replace(use, `${name}$lazy()`);
        lines[i] = `let ${name}$built; const ${name}$lazy = () => (${name}$built ??= ${value});`;
      }
      if (!lines.some((l) => l.includes("Fast path: printable ASCII"))) {
        const entry = lines.indexOf("export default function stringWidth(string, options = {}) {");
        if (entry < 0) throw new Error(`${a.path}: no stringWidth(string, options) to give an ASCII fast path; update scripts/build.mjs`);
        lines.splice(entry + 1, 0, ASCII_FAST_PATH);
      }
      return { contents: lines.join("\n"), loader: "js" };
    });
  },
};

const started = Date.now();
const result = await build({
  absWorkingDir: ROOT,
  entryPoints: sources.filter((f) => !isWasmSource(f)),
  outdir: DIST,
  outbase: ".",
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  write: false,
  logLevel: "warning",
  define: { "import.meta.url": "__sourceUrl", __HEXA_DIST__: "true" },
  plugins: [relativeImportsAsJs],
});

const vendor = await build({
  absWorkingDir: ROOT,
  entryPoints: Object.entries(VENDORED).map(([pkg, file]) => ({ in: `vendor:${pkg}`, out: file.replace(/\.js$/, "") })),
  outdir: join(DIST, "vendor"),
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  write: false,
  logLevel: "warning",
  plugins: [
    {
      name: "vendor-entries",
      setup(b) {
        // Each entry re-exports its package (and yargs its default export), so the bundle is the package.
        b.onResolve({ filter: /^vendor:/ }, (a) => ({ path: a.path.slice("vendor:".length), namespace: "vendor" }));
        b.onLoad({ filter: /.*/, namespace: "vendor" }, ({ path: pkg }) => ({
          contents: `export * from "${pkg}";${pkg === "yargs" ? ` export { default } from "${pkg}";` : ""}`,
          resolveDir: ROOT,
          loader: "js",
        }));
      },
    },
    lazyUnicodeTables,
    packageFileUrls,
  ],
  banner: { js: 'import { createRequire as __hexaCreateRequire } from "node:module"; const require = __hexaCreateRequire(import.meta.url);' },
});

mkdirSync(DIST, { recursive: true });
for (const entry of readdirSync(DIST)) if (entry !== "wasm") rmSync(join(DIST, entry), { recursive: true, force: true });
for (const out of vendor.outputFiles) {
  mkdirSync(dirname(out.path), { recursive: true });
  writeFileSync(out.path, out.text);
}
for (const out of result.outputFiles) {
  const source = join(ROOT, relative(DIST, out.path)).replace(/\.js$/, ".ts");
  const url = relative(dirname(out.path), source).split("\\").join("/");
  mkdirSync(dirname(out.path), { recursive: true });
  writeFileSync(out.path, `const __sourceUrl = new URL(${JSON.stringify(url)}, import.meta.url).href;\n${out.text}`);
}
// What bin/launch.js compares with the stamp's time: every source compiled, and every folder holding them (a
// file added, renamed or deleted changes its folder's time).
const dirs = [
  ...new Set(
    sources.flatMap((f) =>
      f
        .split("/")
        .slice(0, -1)
        .map((_, i, parts) => parts.slice(0, i + 1).join("/")),
    ),
  ),
].sort();
const { kernelWasmPath, ensureKernelWasm } = await import(pathToFileURL(join(DIST, WASM_LOADER)).href);
const kernel = kernelWasmPath();
mkdirSync(join(DIST, "wasm"), { recursive: true });
// Another key's kernels go; the current one and its temporary files (a compile under way) stay.
for (const f of readdirSync(join(DIST, "wasm"))) if (!join(DIST, "wasm", f).startsWith(kernel)) rmSync(join(DIST, "wasm", f), { force: true });
ensureKernelWasm();
writeFileSync(join(DIST, ".built"), `${JSON.stringify({ sources, dirs })}\n`);
process.stderr.write(
  `hexa: compiled ${result.outputFiles.length} modules and bundled ${Object.keys(VENDORED).join(", ")} to dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
);
