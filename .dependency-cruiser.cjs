/**
 * The layer rules of docs/ARCHITECTURE.md, checked by `npm run lint:deps` (part of `npm test`).
 * - Generic code (agents/, src/) never imports a family: it takes the family as a parameter (src/family/).
 *   The one exception is the registry, src/family/registry.ts... no: families/index.ts lists the families,
 *   and only the CLI's registry module imports it.
 * - A family never imports another family.
 * Tests beside the code may cross these lines (they exercise generic code on a real family).
 */
const NOT_TESTS = "\\.test\\.ts$";

module.exports = {
  forbidden: [
    {
      name: "generic-imports-family",
      comment: "generic code takes a family as a parameter (src/family/family.ts); only src/cli/families.ts reaches families/index.ts",
      severity: "error",
      from: { path: "^(agents|src)/", pathNot: [NOT_TESTS, "^src/cli/families\\.ts$"] },
      to: { path: "^families/" },
    },
    {
      name: "registry-only-through-index",
      comment: "the CLI's registry imports the list of families, never a family's insides",
      severity: "error",
      from: { path: "^src/cli/families\\.ts$" },
      to: { path: "^families/", pathNot: "^families/index\\.ts$" },
    },
    {
      name: "family-imports-other-family",
      comment: "families are independent: shared code belongs in src/ (generic) or stays in one family",
      severity: "error",
      from: { path: "^families/([^/]+)/" },
      to: { path: "^families/", pathNot: ["^families/$1/"] },
    },
    {
      name: "store-imports-agents",
      comment: "the store is below the agents: record schemas live in src/store (e.g. src/store/trajectory.ts)",
      severity: "error",
      from: { path: "^src/store/", pathNot: NOT_TESTS },
      to: { path: "^(agents|src/loop|src/cli)/" },
    },
    {
      name: "no-upward-from-llm",
      comment: "the model layer knows nothing of the method",
      severity: "error",
      from: { path: "^src/llm/", pathNot: NOT_TESTS },
      to: { path: "^(agents|src/loop|src/store|src/cli|src/report)/" },
    },
    {
      name: "agents-below-loop",
      comment: "the loop composes the agents, never the reverse",
      severity: "error",
      from: { path: "^agents/", pathNot: NOT_TESTS },
      to: { path: "^(src/loop|src/cli)/" },
    },
    {
      name: "no-circular",
      severity: "error",
      from: { pathNot: NOT_TESTS },
      // A command loaded when it runs (a dynamic import) may close a cycle: it is evaluated after every module of the loop.
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only", "dynamic-import"] } },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
