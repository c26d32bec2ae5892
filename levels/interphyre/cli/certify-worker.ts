import { certifySeed } from "../certify.ts";
import type { CertifyBudget } from "../certify-budget.ts";
import { loadEngine, type EngineName } from "../world/engines.ts";

/** A child process that certifies the seeds its parent sends, one message per seed, on the engine named. */
process.on("message", async (msg: { level: string; seed: number; budget: CertifyBudget; engine: EngineName }) => {
  process.send!(certifySeed(msg.level, msg.seed, msg.budget, await loadEngine(msg.engine)));
});
