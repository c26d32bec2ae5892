/**
 * The slow tier: in-process tests (real trainings, whole fixture sets, pools of worker threads, whole runs of the loop) that take ~8 s or
 * more each on 2 cores. `npm test` runs everything; `npm run test:fast` leaves these out, and the integration
 * tests (`*.int.test.ts`: processes, servers, browsers, dist/) too (vitest.config.ts).
 */
export const SLOW_TESTS = [
  "levels/interphyre/fidelity.test.ts",
  "levels/interphyre/scene-check-pool.test.ts",
  "levels/reward-search/envs/threaded-env.test.ts",
  "levels/reward-search/family.test.ts",
  "levels/reward-search/tasks/tasks.test.ts",
  "levels/reward-search/trainer/ppo.test.ts",
  "src/loop/reference-loop-prompts.test.ts",
  "src/loop/run-loop-held.test.ts",
  "src/loop/run-loop-inputs.test.ts",
  "src/loop/run-loop.test.ts",
];
