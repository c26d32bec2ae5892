import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "families/**/*.test.ts", "agents/**/*.test.ts", "test/**/*.test.ts"],
    exclude: ["**/*.int.test.ts", "node_modules/**"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
