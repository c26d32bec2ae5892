import { ConfigError } from "../errors.ts";
import { LlmError } from "../llm/llm-error.ts";
import type { BankEvent } from "../store/bank.ts";
import { eventProblem, type PayloadSchema } from "../store/bank-check.ts";
import { updateKey } from "../store/run-dir.ts";
import type { EpisodeRecord } from "../store/run-records.ts";
import { updateBank, updatesAt } from "./bank-update.ts";
import { usageLine } from "./episode-backend.ts";
import type { LoopContext } from "./loop-context.ts";
import { updateSlot } from "./run-order.ts";
import { hexaCommand } from "../util/hexa-command.ts";
import { counted } from "../util/counted.ts";

const nothing = () => undefined;

/**
 * Commits an update in memory at once (the level's next round plays with it) and hands in its write, which
 * follows in the run's order; `announce` logs the bank's new size as it is written.
 */
export const commitUpdate = (ctx: LoopContext, level: string, round: number, out: readonly BankEvent[], ms: number, announce: boolean): Promise<void> => {
  ctx.state.commit(level, round, out, ms);
  const now = ctx.state.bankOf(level);
  const failed = out.find((e) => e.type === "evolver_failure");
  const what = failed?.type === "evolver_failure" ? `kept (evolver failed: ${failed.error})` : `updated with ${counted(out.length, "event", "events")}`;
  return ctx.writes.fill(updateSlot(level, round), () => {
    ctx.ports.dir.appendBankUpdate(level, round, out, ms);
    if (announce)
      ctx.ports.log?.(
        `${level} round ${round}: bank ${what}; now ${counted(now.skills.length, "skill", "skills")}, ${counted(now.mistakes.length, "mistake", "mistakes")}`,
      );
  });
};

/**
 * Refuses an update holding an entry the bank's reader refuses (src/store/bank-check.ts), before anything of it is
 * committed: written, it would leave a run that neither resumes nor evaluates.
 */
const checkUpdate = (level: string, round: number, out: readonly BankEvent[], payload: PayloadSchema): void => {
  for (const e of out) {
    const problem = eventProblem(e, payload);
    if (problem && (e.type === "add" || e.type === "merge" || e.type === "revise"))
      throw new ConfigError(
        `${level} round ${round}: the bank update's ${e.type} of ${e.entry.kind} '${e.entry.id}': ${problem}; the update was not written, so the run's bank stays readable`,
      );
  }
};

/** A level's bank update after round `round` (0: from its offline batch), unless committed or the run is stopping. */
export const updateLevel = async (ctx: LoopContext, level: string, round: number, batch: readonly EpisodeRecord[]): Promise<void> => {
  if (ctx.state.done.has(updateKey(level, round))) return ctx.writes.fill(updateSlot(level, round), nothing);
  if (ctx.stopping()) return;
  const { cfg, ports } = ctx;
  const started = ports.now();
  const where = { phase: round === 0 ? ("offline" as const) : ("stream" as const), level, round };
  const model = ports.evolverModel?.listening((turn) => ctx.onUsage(usageLine("evolver", turn, where, cfg)));
  const labelled = batch.map((e) => ({ id: e.id, trajectory: e.trajectory, r: e.r, category: e.category }));
  let out: BankEvent[];
  try {
    const bank = ctx.state.bankOf(level);
    out = await updateBank({ config: cfg, family: ports.family, level, round, bank, labelled, ...(model ? { evolverModel: model } : {}) });
  } catch (e) {
    if (!(e instanceof LlmError)) throw e;
    throw new ConfigError(
      `${level} round ${round}: the evolver's model endpoint failed (${e.message}); the bank update was not committed. Fix the endpoint or key, then: ${hexaCommand(`run --resume ${ports.dir.path}`)}`,
    );
  }
  // An update whose entries the bank's reader refuses (src/store/bank-check.ts) would leave a run that neither resumes nor
  // evaluates: it is never written.
  checkUpdate(level, round, out, ports.family.heuristics?.payload);
  return commitUpdate(ctx, level, round, out, ports.now() - started, updatesAt(cfg, round));
};
