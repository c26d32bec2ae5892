import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * No module-level mutable wiring (docs/ARCHITECTURE.md, the run context): what a process is wired with (families,
 * host, models, trainer source, spend gate) is built by src/app/context.ts and passed down, never kept in a module.
 * This scans every module of the generic code and the families for top-level `let`/`var` and top-level `const`
 * collections (`new Map/Set/WeakMap/WeakSet`, but for a constant table named in capitals, e.g. `const KINDS = new
 * Set([...])`); the allow-list holds what is not wiring, each with why. The test helpers are scanned too: the fast
 * tier's files share one instance of each (vitest.config.ts), so a helper's state would carry from file to file.
 */
const ROOTS = ["src", "agents", "tools", "levels", "test/support"];

const ALLOWED: Record<string, string> = {
  // Memoisation: a value computed once and never chosen by anyone.
  "src/app/inspect-report.ts assets": "memoisation: the report's script and vega bundles, read once",
  "src/app/inspect-report.ts drawers": "memoisation: a family's drawer per family value",
  "levels/reward-search/heuristic/terms.ts fromLibrary": "memoisation: parsed library terms",
  "levels/reward-search/trainer/policy.ts byName": "memoisation: a policy layout's parameters by name",
  "levels/reward-search/trainer/wasm/kernels.ts compiled": "memoisation: the compiled kernels module",
  "levels/reward-search/trainer/tf.ts ready": "memoisation: the backend's one-time initialisation",
  "levels/reward-search/envs/mujoco/runtime.ts loading": "memoisation: the MuJoCo wasm runtime, loaded once",
  "levels/reward-search/envs/mujoco/runtime.ts runtime": "memoisation: the MuJoCo wasm runtime, loaded once",
  "levels/reward-search/envs/mujoco/runtime.ts models": "memoisation: compiled MuJoCo models by file",
  "levels/reward-search/tasks/humanoid.ts masses": "memoisation: the humanoid model's body masses, read once per thread",
  "levels/reward-search/sandbox/thread-cpu.ts schedstatFd": "memoisation: the thread's schedstat file, opened once",
  "levels/reward-search/sandbox/thread-cpu.ts picked": "memoisation: the CPU clock this platform offers",
  "levels/interphyre/world/broad-phase-order.ts pairs": "a scratch buffer reused between calls, grown on demand",
  "agents/actor.ts agentModules": "memoisation: the actor's langchain modules, imported with the first episode",
  // Side tables keyed by an object: they add to a value, they choose nothing.
  "src/store/chroma-index.ts urls": "side table: a Chroma client's URL, for messages",
  "src/backend/redis/worker.ts oversized": "side table: a job's refused size",
  // A worker thread's own state: its module is the thread's entry point.
  "levels/interphyre/physics-worker.ts sessions": "the physics worker thread's open sessions",
  "levels/interphyre/physics-worker.ts engines": "the physics worker thread's engines by name",
  "levels/reward-search/envs/env-worker.ts env": "the env worker thread's environment",
  "levels/reward-search/envs/env-worker.ts seen": "the env worker thread's message count",
  // Process resources started on first use and stopped at exit.
  "levels/interphyre/physics-host.ts shared": "the process's physics worker pool, started on first use",
  "src/store/chroma-server.ts supervised": "embedded Chroma servers this process started, stopped at exit",
  "src/app/backend.ts opened": "Redis connections by URL, opened once per process and closed at exit",
  // The model layer's console.warn filter, left to its own rewrite.
};

const COLLECTIONS = new Set(["Map", "Set", "WeakMap", "WeakSet"]);

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" || e.name === "fixtures" ? [] : sources(path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") && !e.name.endsWith(".d.ts") ? [path] : [];
  });

const CONSTANT_NAME = /^[A-Z][A-Z0-9_]*$/;

/** `path name` of each top-level `let`/`var` and each top-level `const` made with `new Map/Set/WeakMap/WeakSet` (not a constant table). */
const moduleState = (path: string): string[] => {
  const file = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest);
  return file.statements.flatMap((s) => {
    if (!ts.isVariableStatement(s)) return [];
    const mutable = !(s.declarationList.flags & ts.NodeFlags.Const);
    return s.declarationList.declarations.flatMap((d) => {
      const init = d.initializer;
      const name = d.name.getText(file);
      const collection = init && ts.isNewExpression(init) && ts.isIdentifier(init.expression) && COLLECTIONS.has(init.expression.text);
      return mutable || (collection && !CONSTANT_NAME.test(name)) ? [`${path} ${name}`] : [];
    });
  });
};

describe("module-level state", () => {
  const found = ROOTS.flatMap(sources).flatMap(moduleState);

  it("is none but the allowed memoisation, side tables, worker-thread state and process resources", () => {
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter((f) => !(f in ALLOWED))).toEqual([]);
  });

  it("the allow-list names only what exists", () => {
    expect(Object.keys(ALLOWED).filter((k) => !found.includes(k))).toEqual([]);
  });
});
