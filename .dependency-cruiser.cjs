/**
 * The layer rules of docs/ARCHITECTURE.md, checked by `npm run lint:deps` (part of `npm test`).
 * - Generic code (agents/, src/, tools/) never imports a family: it takes the family as a parameter (src/family/).
 *   The composition root, src/app/, is the one exception: its registry imports levels/index.ts.
 * - A family never imports another family, the CLI (src/cli/) or the composition root: it uses the leaf
 *   src/cli-kit/ and reaches host services through the port src/family/host.ts.
 * - A CLI command never imports another command; shared pieces are modules of their own.
 * - No cycles, dynamic imports included.
 * Tests beside the code may cross these lines (they exercise generic code on a real family).
 */
const NOT_TESTS = "\\.test\\.ts$";
/** The modules that define a `hexa` command (src/cli/commands.ts loads each). */
const COMMANDS = "^src/cli/(bank|bundle|compare|doctor|episode|eval|inspect|levels|run|transfer-command|verify|worker|workers)\\.ts$";

module.exports = {
  forbidden: [
    {
      name: "generic-imports-family",
      comment: "generic code takes a family as a parameter (src/family/family.ts); only src/app/families.ts reaches levels/index.ts",
      severity: "error",
      from: { path: "^(agents|src|tools)/", pathNot: [NOT_TESTS, "^src/app/families\\.ts$"] },
      to: { path: "^levels/" },
    },
    {
      name: "registry-only-through-index",
      comment: "the composition root imports the list of families, never a family's insides",
      severity: "error",
      from: { path: "^src/app/" },
      to: { path: "^levels/", pathNot: "^levels/index\\.ts$" },
    },
    {
      name: "family-imports-other-family",
      comment: "families are independent: shared code belongs in src/ (generic) or stays in one family",
      severity: "error",
      from: { path: "^levels/([^/]+)/" },
      to: { path: "^levels/", pathNot: ["^levels/$1/"] },
    },
    {
      name: "family-imports-cli",
      comment: "a family uses src/cli-kit/ (flags, formatting, commands) and the host port src/family/host.ts, never the CLI or the composition root",
      severity: "error",
      from: { path: "^levels/", pathNot: NOT_TESTS },
      to: { path: "^src/(cli|app)/" },
    },
    {
      name: "cli-kit-is-a-leaf",
      comment: "src/cli-kit/ is what families and commands share: it knows neither of them",
      severity: "error",
      from: { path: "^src/cli-kit/", pathNot: NOT_TESTS },
      to: { path: "^(levels|src/cli|src/app)/" },
    },
    {
      name: "app-imports-cli",
      comment: "the CLI depends on the composition root, never the reverse: what a command and the app share lives in src/app/ or below",
      severity: "error",
      from: { path: "^src/app/" },
      to: { path: "^src/cli/" },
    },
    {
      name: "command-imports-command",
      comment: "a command is a thin yargs module; what two commands share is a module of its own",
      severity: "error",
      from: { path: COMMANDS },
      to: { path: COMMANDS },
    },
    {
      name: "tools-below-agents",
      comment: "tools/ is the tool contract and its dispatch: the agents and the families use it, it knows neither",
      severity: "error",
      from: { path: "^tools/", pathNot: NOT_TESTS },
      to: { path: "^(agents|levels|src/loop|src/cli|src/app)/" },
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
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
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
