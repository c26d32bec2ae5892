import type { UsageLine } from "../../store/run-records.ts";

/** Tokens and cost per role and round (usage.jsonl), and the model calls that failed (llm-log.jsonl). */

export interface FailedCall {
  role: string;
  ts: string;
  error: string;
}

interface UsageRow {
  role: string;
  phase: string;
  round: number;
  calls: number;
  input: number;
  output: number;
  cached: number;
  costUsd: number;
  cacheHits: number;
  unpriced: number;
}

export interface UsageView {
  rows: UsageRow[];
  models: string[];
  failed: FailedCall[];
}

export const usageView = (lines: readonly UsageLine[], failed: readonly FailedCall[]): UsageView => {
  const rows = new Map<string, UsageRow>();
  for (const l of lines) {
    const key = `${l.role}|${l.phase}|${l.round}`;
    const row = rows.get(key) ?? {
      role: l.role,
      phase: l.phase,
      round: l.round,
      calls: 0,
      input: 0,
      output: 0,
      cached: 0,
      costUsd: 0,
      cacheHits: 0,
      unpriced: 0,
    };
    row.calls++;
    row.input += l.input;
    row.output += l.output;
    row.cached += l.cached;
    row.costUsd += l.costUsd;
    row.cacheHits += l.fromCache ? 1 : 0;
    row.unpriced += l.priced ? 0 : 1;
    rows.set(key, row);
  }
  return {
    rows: [...rows.values()].sort((a, b) => a.round - b.round || a.role.localeCompare(b.role)),
    models: [...new Set(lines.map((l) => l.model))],
    failed: [...failed],
  };
};
