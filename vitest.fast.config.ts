import { defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config.ts";
import { SLOW_TESTS } from "./test/slow-tests.ts";

/** `npm run test:fast`: the full suite less the slow end-to-end scenarios (test/slow-tests.ts). */
export default mergeConfig(base, defineConfig({ test: { exclude: SLOW_TESTS } }));
