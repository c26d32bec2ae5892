/**
 * The layer rules of docs/ARCHITECTURE.md, checked by `npm run lint:deps` (part of `npm test`).
 * - Generic code (agents/, src/, tools/) never imports a family: it takes the family as a parameter (src/family/).
 *   The composition root, src/app/, is the one exception: its registry imports levels/index.ts.
 * - A family never imports another family, the CLI (src/cli/) or the composition root: it uses the leaf
 *   src/cli-kit/ and reaches host services through the port src/family/host.ts.
 * - The CLI depends on the composition root (src/app/), never the reverse.
 * - A CLI command never imports another command; shared pieces are modules of their own.
 * - Each folder of the layer table (docs/ARCHITECTURE.md §1) imports only what its row names (`layer` below).
 * - No cycles, dynamic imports included.
 * Tests beside the code may cross these lines (they exercise generic code on a real family).
 */
const NOT_TESTS = "\\.test\\.ts$";
const HEXA = "^(src|agents|tools|levels)/";

/**
 * docs/ARCHITECTURE.md §1, one row: the folder's modules (tests excepted) import nothing of hexa's outside their own
 * folder, src/errors.ts and `allowed` (folders, each "src/x/"); of `typesOnly`, types alone.
 */
const layer = (folder, allowed, typesOnly = []) => [
  {
    name: `layer-${folder.replace(/\/$/, "").replaceAll("/", "-")}`,
    comment: `${folder} may import ${[...allowed, ...typesOnly.map((t) => `${t} (types)`)].join(", ") || "nothing of hexa's"} (docs/ARCHITECTURE.md §1)`,
    severity: "error",
    from: { path: `^${folder}`, pathNot: NOT_TESTS },
    to: { path: HEXA, pathNot: [`^${folder}`, "^src/errors\\.ts$", ...[...allowed, ...typesOnly].map((a) => `^${a}`)] },
  },
  ...(typesOnly.length
    ? [
        {
          name: `layer-${folder.replace(/\/$/, "").replaceAll("/", "-")}-types`,
          comment: `${folder} imports only types of ${typesOnly.join(", ")} (docs/ARCHITECTURE.md §1)`,
          severity: "error",
          from: { path: `^${folder}`, pathNot: NOT_TESTS },
          to: { path: typesOnly.map((t) => `^${t}`), dependencyTypesNot: ["type-only"] },
        },
      ]
    : []),
];
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
    ...layer("src/cli-kit/", ["src/util/"], ["src/family/"]),
    ...layer("src/loop/", ["agents/", "src/store/", "src/llm/", "src/search/", "src/util/"], ["src/family/"]),
    ...layer("src/backend/", ["src/loop/", "src/store/", "src/llm/", "src/util/", "src/family/"]),
    ...layer("agents/", ["src/family/", "src/store/", "src/llm/", "src/util/"]),
    ...layer("src/family/", [], ["src/store/", "src/llm/", "src/loop/", "agents/", "src/report/", "src/verify/"]),
    ...layer("tools/", ["src/llm/", "src/util/"], ["src/family/"]),
    ...layer("src/search/", ["src/store/", "src/util/", "src/cli-kit/"]),
    ...layer("src/store/", ["src/llm/", "src/util/"]),
    ...layer("src/report/", ["src/store/", "src/cli-kit/", "src/util/"], ["src/family/", "src/loop/"]),
    ...layer("src/bundle/", ["src/store/", "src/util/"]),
    ...layer("src/verify/", ["src/llm/", "src/search/", "src/util/"]),
    ...layer("src/llm/", ["src/util/"]),
    ...layer("src/util/", []),
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
