import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "levels/**/*.test.ts", "tools/**/*.test.ts", "agents/**/*.test.ts", "test/**/*.test.ts"],
    exclude: ["node_modules/**"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    globalSetup: ["test/support/build-dist.ts"],
    // hexa run / eval / compare probe each endpoint first (src/app/preflight.ts); a scripted server answers in
    // order, so its probes would take the test's answers. The pre-flight's own tests turn it back on.
    env: { HEXA_NO_DOCTOR: "1" },
  },
});
