/**
 * The layer rules of style.md §1 and issue 10 §1, checked by `npm run lint:deps` (part of `npm test`).
 * Generic modules (the method: agents/, src/loop, src/store, src/llm) never import a level family's code:
 * levels/, the family tools in tools/, the physics world in src/sim, the reward sandbox or the trainer.
 * Tests beside the code may (they exercise the generic code on a real family).
 */
const GENERIC = "^(agents|src/loop|src/store|src/llm)/";
const FAMILY = "^(levels|tools|src/sim|src/sandbox|src/trainer)/";
const NOT_TESTS = "\\.test\\.ts$";

module.exports = {
  forbidden: [
    {
      name: "generic-imports-family",
      comment: "generic modules take the family as a parameter (src/loop/family.ts) instead of importing its code",
      severity: "error",
      from: { path: GENERIC, pathNot: NOT_TESTS },
      to: { path: FAMILY },
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
      to: { circular: true, dependencyTypesNot: ["type-only"] },
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
