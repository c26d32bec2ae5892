import { join } from "node:path";
import type { FamilyRegistry } from "../app/families.ts";
import type { RunConfig } from "../loop/run-config.ts";
import { checkRecordedBank } from "../store/bank-check.ts";
import { RunDir, updateKey, type BankLog } from "../store/run-dir.ts";
import { terminalText } from "../util/terminal-text.ts";
import { runDirConfig } from "../app/run-setup.ts";

/** The last round whose update is committed on a level; -1 when none is. */
export const lastCommitted = (log: BankLog, cfg: RunConfig, level: string): number => {
  for (let r = cfg.rounds; r >= 0; r--) if (log.done.has(updateKey(level, r))) return r;
  return -1;
};

/** A run directory and its parsed config.yaml, its recorded bank checked as its episodes would read it. */
export const openRun = (families: FamilyRegistry, path: string): { dir: RunDir; cfg: RunConfig } => {
  const dir = RunDir.open(path);
  const cfg = runDirConfig(families, dir, join(path, "config.yaml"), (line) => process.stderr.write(`${terminalText(line)}\n`));
  checkRecordedBank(join(path, "bank-events.jsonl"), dir.bankLog({ repair: false }).events, families.get(cfg.family).heuristics?.payload);
  return { dir, cfg };
};
