import { certifySeed, type CertifyBudget } from "../certify.ts";

/** A child process that certifies the seeds its parent sends, one message per seed. */
process.on("message", (msg: { level: string; seed: number; budget: CertifyBudget }) => {
  process.send!(certifySeed(msg.level, msg.seed, msg.budget));
});
