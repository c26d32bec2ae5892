import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { percent } from "../cli-kit/format.ts";
import type { LevelFamily } from "../family/family.ts";
import type { Metrics } from "../loop/metrics.ts";
import type { RunConfig } from "../loop/run-config.ts";
import { schedule } from "../loop/schedule.ts";
import type { RunDir } from "../store/run-dir.ts";
import type { UsageLine } from "../store/run-records.ts";
import { scoreRun } from "../report/final-scores-text.ts";
import type { FamilyRegistry } from "./families.ts";
import { prepareRunAnimations, writeRunReport } from "./inspect-report.ts";
import { hexaCommand } from "../util/hexa-command.ts";

const out = (text: string) => void process.stdout.write(text);

/** The rounds' table on stdout: per level its successes, turns and final bank, then tokens, cost and time. */
const printSummary = (m: Metrics, dir: string): void => {
  const label = m.agent.startsWith("heuristic") ? " — heuristic experimentalist, no LLM" : "";
  out(`\nrun ${m.run}${label}\n`);
  out(`${"level".padEnd(22)} ${"success".padStart(12)} ${"turns".padStart(6)} ${"skills".padStart(7)} ${"mistakes".padStart(9)}   (final bank)\n`);
  for (const [level, l] of Object.entries(m.levels)) {
    out(
      `${level.padEnd(22)} ${`${l.successes}/${l.episodes} ${percent(l.successes, l.episodes)}`.padStart(12)} ${l.meanTurns.toFixed(1).padStart(6)} ${String(l.finalBank.skills).padStart(7)} ${String(l.finalBank.mistakes).padStart(9)}\n`,
    );
  }
  const u = m.usage.total;
  out(
    `tokens ${u.input + u.output} (${u.calls} calls${u.estimatedCalls ? `, ${u.estimatedCalls} estimated: the server reported no usage` : ""}), cost $${u.costUsd.toFixed(4)}${u.unpricedCalls ? ` + ${u.unpricedCalls} unpriced calls` : ""}; time: simulation ${(m.time.simulationMs / 1000).toFixed(1)} s, agent ${(m.time.agentMs / 1000).toFixed(1)} s, bank ${(m.time.bankMs / 1000).toFixed(1)} s\n`,
  );
  for (const p of m.problems ?? []) out(`${p.fatal ? "PROBLEM" : "note"}: ${p.message}\n`);
  out(`run directory: ${dir}\nheld-out check: ${hexaCommand(`eval ${dir}`)}\n`);
};

/** A search's summary: its calls' tokens and cost, the family's final scores, where its records are. */
export const summariseSearch = async (family: LevelFamily, cfg: RunConfig, dir: RunDir, usage: readonly UsageLine[]): Promise<void> => {
  if (usage.length)
    out(`tokens ${usage.reduce((n, l) => n + l.input + l.output, 0)} (${usage.length} calls), cost $${usage.reduce((n, l) => n + l.costUsd, 0).toFixed(4)}\n`);
  await scoreRun(family, cfg, schedule(cfg, family), dir.path, [], out);
  out(`run directory: ${resolve(dir.path)}\nlineage: ${hexaCommand(`inspect ${dir.path}`)}\n`);
};

/** The sizes of the files the rounds append to: equal before and after, the run recorded nothing new. */
export const recordedSize = (dir: RunDir): string =>
  ["episodes.jsonl", "bank-events.jsonl"].map((f) => (existsSync(join(dir.path, f)) ? statSync(join(dir.path, f)).size : 0)).join();

/**
 * The rounds' summary: the table, the family's final scores and the report (a resume that recorded nothing new
 * leaves its report as it was). Returns the fatal problems' message when the numbers are misleading.
 */
export const summariseRounds = async (
  families: FamilyRegistry,
  family: LevelFamily,
  cfg: RunConfig,
  dir: RunDir,
  metrics: Metrics,
  sizeBefore: string,
): Promise<string | undefined> => {
  const report = join(dir.path, "report.html");
  const kept = recordedSize(dir) === sizeBefore && existsSync(report);
  const episodes = dir.episodes({ repair: false });
  // Started first: a family's drawer may make the report's animations in its workers meanwhile.
  const animations = kept ? Promise.resolve() : prepareRunAnimations(families, family.id, episodes);
  printSummary(metrics, resolve(dir.path));
  await scoreRun(family, cfg, schedule(cfg, family), dir.path, episodes, out);
  await animations;
  out(`report: ${kept ? resolve(report) : writeRunReport(families, dir.path)}\n`);
  const fatal = (metrics.problems ?? []).filter((p) => p.fatal);
  return fatal.length ? `${dir.path}: the run finished, but its result is misleading: ${fatal.map((p) => p.message).join("; ")}` : undefined;
};
