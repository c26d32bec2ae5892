import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { SLOW_TESTS } from "./test/slow-tests.ts";

const TREES = ["src", "levels", "tools", "agents", "test"];
const INTEGRATION = "**/*.int.test.ts";

/**
 * The test tiers (CONTRIBUTING.md, "Tests"), one vitest project each; `npm test` runs all three, `npm run test:fast`
 * the first. fast and slow run in-process (test/support/in-process-only.ts fails a file that starts a process or a
 * server; their global setup compiles the PPO kernels' wasm first when this checkout has none); int starts
 * processes, servers and browsers, and only it builds the whole of dist/ first.
 */
export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // hexa run / eval / compare probe each endpoint first (src/app/preflight.ts); a scripted server answers in
    // order, so its probes would take the test's answers. The pre-flight's own tests turn it back on.
    env: { HEXA_NO_DOCTOR: "1" },
    projects: [
      {
        extends: true,
        test: {
          name: "fast",
          // Files share each worker's process and modules, so a module is imported once per worker rather than
          // once per file (most of this tier's time); the second setup file fails a file that leaves the process
          // changed for the files after it.
          isolate: false,
          // Two workers even on 2 cores (vitest's default there is one): each imports the modules once, and the
          // tier takes ~1/3 less time than with one. Its own group, as the other tiers keep vitest's default.
          maxWorkers: Math.max(2, availableParallelism() - 1),
          sequence: { groupOrder: 0 },
          include: TREES.map((t) => `${t}/**/*.test.ts`),
          exclude: ["node_modules/**", INTEGRATION, ...SLOW_TESTS],
          setupFiles: ["test/support/in-process-only.ts", "test/support/leaves-process-as-found.ts"],
          globalSetup: ["test/support/kernel-wasm.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "slow",
          sequence: { groupOrder: 1 },
          include: SLOW_TESTS,
          exclude: [INTEGRATION],
          setupFiles: ["test/support/in-process-only.ts"],
          globalSetup: ["test/support/kernel-wasm.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "int",
          // Two files at once even on 2 cores (vitest's default there is one): most of an int file's time is spent
          // waiting on the processes, servers and browsers it starts, so one worker left the cores a third idle. Its
          // own group, after slow: vitest runs a group's projects with one maxWorkers.
          sequence: { groupOrder: 2 },
          maxWorkers: Math.max(2, availableParallelism() - 1),
          include: TREES.map((t) => `${t}/**/*.int.test.ts`),
          exclude: ["node_modules/**"],
          globalSetup: ["test/support/build-dist.ts", "test/support/shared-fixtures.ts"],
        },
      },
    ],
  },
});
