import { ensureKernelWasm } from "../../levels/reward-search/trainer/wasm/kernels.ts";

/**
 * Global setup of the in-process tiers (vitest.config.ts): the PPO kernels' wasm, compiled before any test file runs
 * when this checkout has none yet (a child process, once per source hash: docs/spec/reward-search.md §6), so that
 * no test file of those tiers starts that process itself.
 */
export default (): void => void ensureKernelWasm();
