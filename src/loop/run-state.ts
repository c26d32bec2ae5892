import { applyEvent, EMPTY_BANK, foldEvents, type Bank, type BankEvent } from "../store/bank.ts";
import { updateKey, type RunDir } from "../store/run-dir.ts";
import type { EpisodeRecord, UsageLine } from "../store/run-records.ts";

/**
 * What the loop knows of its run: read once from the run directory, then advanced in memory as episodes finish
 * and updates commit. The files follow in the run's order (ordered-writes.ts), so a level may be rounds ahead of
 * what the files say while another level finishes an earlier round.
 */
export class RunState {
  readonly records: Map<string, EpisodeRecord>;
  /** Each level's committed bank events, in commit order. */
  readonly events: Map<string, BankEvent[]>;
  /** updateKey(level, round) of every committed update. */
  readonly done: Set<string>;
  readonly usage: UsageLine[];
  bankMs: number;
  /** Each level's bank, folded once and then advanced by every commit (a refold per episode grows with the log). */
  private readonly banks: Map<string, Bank>;
  private readonly atRound = new Map<string, Bank>();

  constructor(levels: readonly string[], dir: RunDir, log?: (line: string) => void) {
    const onDuplicate = (ids: string[]) =>
      log?.(
        `warning: episodes.jsonl has ${ids.length} duplicated line(s) (${ids.slice(0, 3).join(", ")}${ids.length > 3 ? ", …" : ""}); each episode is counted once, the first line kept`,
      );
    this.records = new Map(dir.episodes({ onDuplicate }).map((e) => [e.id, e] as const));
    const bankLog = dir.bankLog();
    this.events = new Map(levels.map((l) => [l, bankLog.events.get(l) ?? []] as const));
    this.done = bankLog.done;
    this.bankMs = bankLog.ms;
    this.usage = dir.usage();
    this.banks = new Map(levels.map((l) => [l, foldEvents(this.eventsOf(l))] as const));
  }

  eventsOf(level: string): BankEvent[] {
    return this.events.get(level) ?? [];
  }

  bankOf(level: string): Bank {
    return this.banks.get(level) ?? EMPTY_BANK;
  }

  /**
   * The bank an episode of round r + 1 plays with: the fold of the log up to round r. In an uninterrupted run
   * it is the live bank; a resume that replays a lost record of an early round must not show it a later bank.
   */
  bankAt(level: string, round: number): Bank {
    const key = updateKey(level, round);
    if (!this.atRound.has(key)) this.atRound.set(key, foldEvents(this.eventsOf(level), round));
    return this.atRound.get(key)!;
  }

  record(rec: EpisodeRecord): void {
    this.records.set(rec.id, rec);
  }

  /** Folds an update (a fold that fails is a hexa bug, thrown before anything changes), then holds it committed. */
  commit(level: string, round: number, out: readonly BankEvent[], ms: number): void {
    const next = out.reduce(applyEvent, this.bankOf(level));
    this.events.set(level, [...this.eventsOf(level), ...out]);
    this.banks.set(level, next);
    this.done.add(updateKey(level, round));
    this.bankMs += ms;
  }

  /** Every level's events of rounds ≤ `round`: the log as a lockstep run has it once that round is done. */
  eventsAsOf(round: number): Map<string, BankEvent[]> {
    return new Map([...this.events].map(([level, events]) => [level, events.filter((e) => e.round <= round)] as const));
  }
}
