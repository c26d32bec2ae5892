import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * What marks a test as an integration test (CONTRIBUTING.md, "Tests"): a value import that starts a process, a
 * server or a browser, or a path into dist/. A test that shows one of these, itself or in a test/ helper it
 * imports, must be named `*.int.test.ts`.
 */
const STARTERS: { module: RegExp; names?: RegExp; what: string }[] = [
  { module: /^(node:)?child_process$/, what: "a child process" },
  { module: /^execa$/, what: "a child process (execa)" },
  { module: /^(node:)?(http|https|http2|net|tls)$/, names: /\b(createServer|createSecureServer|Server)\b/, what: "a server" },
  { module: /^(ioredis|bullmq)$/, what: "Redis" },
  { module: /^chromadb$/, what: "a Chroma server" },
  { module: /^playwright(-core)?$/, what: "a browser" },
];
const DIST_PATH = /["'`](\.\.\/)*dist\/|join\([^)]*["']dist["']/;

/**
 * The scripted OpenAI-compatible servers: in-process, on a loopback port the system picks, one request ≈ 3 ms of
 * CPU. Model paths speak HTTP, so the fast tier may use these two and no other server.
 */
export const IN_PROCESS_SERVERS = ["test/support/fake-openai-server.ts", "test/support/fake-endpoint.ts"];
/** A static import or re-export: `import x from`, `import { a } from`, `import * as n from`, `export … from`, a bare `import "m"`. */
const STATIC = /^(?:import|export)\s+(type\s+)?(?:([^;"'`]*?)\s*from\s*)?["']([^"']+)["']/gm;
/** A dynamic `import("m")` or `require("m")` of a literal name. */
const DYNAMIC = /\b(?:import|require)\(\s*["']([^"']+)["']\s*\)/g;

interface ModuleUse {
  module: string;
  /** What it binds: `{ a, b }`, `x` or `* as n`; "" for a dynamic import (the file's own calls tell). */
  names: string;
}

/** `{ type A, type B }`: names that are all types, which the compiled file no longer imports. */
const ALL_TYPES = /^\{\s*type\s+\w+(?:\s+as\s+\w+)?(?:\s*,\s*type\s+\w+(?:\s+as\s+\w+)?)*\s*,?\s*\}$/;

/** The modules a file imports as values at its top (loaded with it), with the names each binds. */
export const staticValueImports = (text: string): ModuleUse[] =>
  [...text.matchAll(STATIC)]
    .filter(([, typeOnly, names = ""]) => !typeOnly && !ALL_TYPES.test(names.trim()))
    .map(([, , names = "", module = ""]) => ({ module, names }));

/** The modules a file imports as values (a type-only import starts nothing). */
export const moduleUses = (text: string): ModuleUse[] => [
  ...staticValueImports(text),
  ...[...text.matchAll(DYNAMIC)].map(([, module = ""]) => ({ module, names: "" })),
];

/**
 * Why the source `text` of `file` starts a process, a server or a browser itself: a named import is judged by the
 * names it binds, a default, namespace or dynamic import (`import http from "node:http"`) by the whole file.
 */
export const ownStarts = (file: string, text: string): string[] => {
  const reasons = DIST_PATH.test(text) ? [`${file} reads dist/`] : [];
  for (const { module, names } of moduleUses(text)) {
    const judged = names.trimStart().startsWith("{") ? names : text;
    const starter = STARTERS.find((s) => s.module.test(module) && (!s.names || s.names.test(judged)));
    if (starter) reasons.push(`${file} imports ${module}: ${starter.what}`);
  }
  return reasons;
};

/** The test files vitest runs (vitest.config.ts's include), relative to the repository root. */
export const testFiles = (): string[] =>
  ["src", "levels", "tools", "agents", "test"].flatMap((tree) =>
    readdirSync(join(ROOT, tree), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(".test.ts") && !f.includes("node_modules"))
      .map((f) => join(tree, f)),
  );

/** Why the test at `file` (relative to the root) is an integration test, or [] when nothing in it or its test/ helpers says so. */
export const integrationReasons = (file: string, seen = new Set<string>()): string[] => {
  if (seen.has(file) || IN_PROCESS_SERVERS.includes(file)) return [];
  seen.add(file);
  const text = readFileSync(join(ROOT, file), "utf8");
  const reasons = ownStarts(file, text);
  for (const { module } of moduleUses(text)) {
    const helper = module.startsWith(".") ? relative(ROOT, resolve(dirname(join(ROOT, file)), module)) : undefined;
    if (helper?.startsWith("test/") && existsSync(join(ROOT, helper))) reasons.push(...integrationReasons(helper, seen));
  }
  return reasons;
};
