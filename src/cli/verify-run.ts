import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import type { AppContext } from "../app/context.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HexaError } from "../errors.ts";
import type { FamilyReplay } from "../family/replay.ts";
import { runConfigYaml, usesBank, type RunConfig } from "../loop/run-config.ts";
import { RunDir } from "../store/run-dir.ts";
import { compareBankEvents, compareEpisodes, compareOtherRecords } from "../verify/compare-records.ts";
import { CannotVerify, type Divergence, reportOf, type VerifyCounts, type VerifyReport } from "../verify/outcome.ts";
import { readExchanges } from "../verify/recorded-exchanges.ts";
import { ReplayBook } from "../verify/replay-model.ts";
import { modelsFrom, runDirConfig } from "../app/run-setup.ts";
import { NO_MIDDLEWARE } from "../app/middleware-plugins.ts";
import { replayConfig } from "./verify-config.ts";
import { replayRun } from "./verify-replay.ts";

export interface VerifyOptions {
  /** Trainings to do again for real, chosen at random (reward search); 0: none. */
  retrain?: number;
  /** The seed of that choice; unset: drawn and printed. */
  retrainSeed?: number;
  /** Largest |F difference| a retrained training may show; unset: 0 for the built-in trainer, 0.05 for a trainer command. */
  tolerance?: number;
  /** `--trainer-command`: the reader's trainer for `retrain` (never the run's); unset: the built-in trainer. */
  trainerCommand?: readonly string[];
  /** `--trainer-cache`: where the reader keeps a run directory's recorded trainings (a bundle carries its own). */
  trainerCache?: string;
  /** Progress lines (the replay's own output is kept and shown only when it fails). */
  log?: (line: string) => void;
}

/** The reader's choices for `--retrain`: the tolerance and the trainer command, each only when given. */
export const retrainChoices = (o: VerifyOptions): { tolerance?: number; trainerCommand?: readonly string[] } => ({
  ...(o.tolerance === undefined ? {} : { tolerance: o.tolerance }),
  ...(o.trainerCommand === undefined ? {} : { trainerCommand: o.trainerCommand }),
});

const needsModels = (cfg: RunConfig) => cfg.agent !== "heuristic" || (usesBank(cfg) && cfg.evolver === "llm");

/**
 * The recorded exchanges a run's replay is answered with, or none for a run that asked no model: always the run's
 * own llm-log.jsonl, never a log elsewhere that config.yaml's llm.auditLog names (docs/security.md).
 */
const bookOf = (dir: string, cfg: RunConfig): ReplayBook | undefined => {
  if (!needsModels(cfg)) return undefined;
  const own = join(dir, "llm-log.jsonl");
  if (cfg.llm.auditLog !== undefined && !existsSync(own))
    throw new CannotVerify(
      `llm.auditLog: the run logged its model exchanges outside its directory (got ${JSON.stringify(cfg.llm.auditLog)}); hexa verify reads only ${own}, never a path a run's config names: copy the run's lines there (a bundle carries only that file)`,
    );
  return new ReplayBook(readExchanges(own));
};

const replayedRunDir = (runsDir: string): string => {
  const made = existsSync(runsDir) ? readdirSync(runsDir).filter((n) => !n.startsWith(".") && statSync(join(runsDir, n)).isDirectory()) : [];
  if (made.length !== 1) throw new CannotVerify(`the replay made ${made.length} run directories in ${runsDir} (expected one)`);
  return join(runsDir, made[0]!);
};

/** Whether the recorded run itself ended with an error of the run's (metrics.json's fatal problems): the replay then does too. */
const recordEndedMisleading = (dir: string): boolean => {
  try {
    const m = JSON.parse(readFileSync(join(dir, "metrics.json"), "utf8")) as { problems?: Array<{ fatal?: boolean }> };
    return (m.problems ?? []).some((p) => p.fatal === true);
  } catch {
    return false;
  }
};

const compareAll = (record: string, replayed: string, counts: VerifyCounts): Divergence | undefined => {
  const episodes = compareEpisodes(record, replayed);
  counts.episodes = episodes.count;
  if (episodes.divergence) return episodes.divergence;
  const bank = compareBankEvents(record, replayed);
  counts.bankEvents = bank.count;
  return bank.divergence ?? compareOtherRecords(record, replayed);
};

/**
 * Re-executes one recorded run (docs/guides/verify.md): `hexa run`'s own code in a fresh folder on the part of
 * the run's config that shapes its records (src/cli/verify-config.ts: no endpoint, command or path of the run's
 * is followed), every model request answered from the run's llm-log.jsonl by its exact key, every training from
 * the recorded trainings; then every record compared with the run's. Never opens a connection.
 */
export const verifyRun = async (ctx: AppContext, dir: string, options: VerifyOptions = {}): Promise<VerifyReport> => {
  const log = options.log ?? (() => {});
  const run = RunDir.open(dir);
  const cfg = runDirConfig(ctx.families, run, `${dir}/config.yaml`, log);
  await ctx.families.load([cfg.family]);
  const replayed = replayConfig(cfg, run.path, `${dir}/config.yaml`, { note: log, families: ctx.families.all() });
  const book = bookOf(run.path, cfg);
  const counts: VerifyCounts = { episodes: 0, bankEvents: 0, modelExchanges: 0, trainings: 0, runs: 1 };
  const work = mkdtempSync(join(tmpdir(), "hexa-verify-"));
  const report = (divergence?: Divergence): VerifyReport => {
    counts.modelExchanges = book?.answered ?? 0;
    counts.trainings += family?.answered() ?? 0;
    return reportOf(dir, counts, divergence);
  };
  let family: FamilyReplay | undefined;
  try {
    const module = ctx.families.modules().find((m) => m.id === cfg.family);
    family = await module?.replay?.run({
      runDir: run.path,
      config: replayed,
      startedAt: new Date(run.meta.createdAt),
      workDir: work,
      ...(options.trainerCache === undefined ? {} : { trainerCache: options.trainerCache }),
    });
    writeFileSync(join(work, "config.yaml"), runConfigYaml(replayed, ctx.families.all()));
    // The replayed run takes its models from the record (the same context, its model source replaced), and runs no
    // user middleware, whoever calls (docs/security.md).
    const replaying = { ...ctx, actorMiddleware: NO_MIDDLEWARE, ...(book ? { models: modelsFrom((role, name) => book.model(role, name)) } : {}) };
    const outcome = await replayRun(replaying, join(work, "config.yaml"), join(work, "runs"));
    if (book?.divergence) return report(book.divergence);
    const missing = family?.missing();
    if (missing) throw new CannotVerify(missing);
    if (outcome.error && !(outcome.error instanceof HexaError && recordEndedMisleading(run.path))) {
      if (outcome.error instanceof CannotVerify) throw outcome.error;
      const tail = outcome.output.trim().split("\n").slice(-5).join("\n");
      return report({ what: "the replayed run", field: "outcome", recorded: "finished", replayed: `${outcome.error.message}${tail ? `\n${tail}` : ""}` });
    }
    // A resumed run's log also holds the exchanges of episodes cut short and played again, which no record cites.
    const ownLog = book && !cfg.llm.auditLog && run.writers().length <= 1;
    const divergence = compareAll(run.path, replayedRunDir(join(work, "runs")), counts) ?? (ownLog ? book.firstUnasked() : undefined);
    if (divergence || !options.retrain || !family?.retrain) return report(divergence);
    const seed = options.retrainSeed ?? Math.floor(Math.random() * 2 ** 31);
    const again = await family.retrain({ count: options.retrain, seed, ...retrainChoices(options), log });
    counts.trainings += again.checked;
    return report(again.divergence);
  } finally {
    await family?.close();
    rmSync(work, { recursive: true, force: true });
  }
};
