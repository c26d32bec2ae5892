import type { HeldEpisode, HeldEpisodes, PlayedWith } from "../store/held-episodes.ts";
import { BankData, type EpisodeRecord } from "../store/run-records.ts";
import { sha256Hex } from "../util/canonical-json.ts";
import type { EpisodeJob } from "./episode-backend.ts";

/**
 * What a job is played under, as a later process can check it: the bank it is shown (through its schema, so an
 * in-memory bank and the same bank folded from bank-events.jsonl hash alike) and the rest of the job.
 */
const playedWith = (job: EpisodeJob): PlayedWith => {
  const { bank, ...rest } = job;
  return { bank: sha256Hex(BankData.parse(JSON.parse(JSON.stringify(bank)))), job: sha256Hex(rest) };
};

const differs = (held: PlayedWith, now: PlayedWith): string | undefined =>
  held.bank !== now.bank ? "another bank" : held.job !== now.job ? "other settings (agent, bank round or budget share)" : undefined;

/**
 * Finished episodes that wait for the run's order, kept on disk so a kill -9 loses none (docs/ARCHITECTURE.md §4):
 * each is spooled as it finishes when its write must wait, and leaves the spool once written. A resume takes a
 * held episode instead of playing it again when it was played under exactly the job the resume would play;
 * any other held file is discarded with a notice, never used.
 */
export class HeldWork {
  /** Held episodes an earlier process left that no episode of this process has asked for yet. */
  private readonly left: Map<string, HeldEpisode>;
  /** Episodes this process spooled (or took from the spool) that are not written yet. */
  private readonly spooled = new Set<string>();

  constructor(
    private readonly spool: HeldEpisodes,
    records: ReadonlyMap<string, EpisodeRecord>,
    private readonly log: (line: string) => void,
  ) {
    const { held, unreadable } = spool.read();
    for (const u of unreadable) {
      log(`resume: ${u.file}: ${u.problem}; discarded, that episode is played again`);
      spool.discard(u.file);
    }
    // Already in episodes.jsonl: the process was killed between the write and the spool's release.
    for (const h of held.filter((x) => records.has(x.record.id))) spool.release(h.record.id);
    this.left = new Map(held.filter((x) => !records.has(x.record.id)).map((h) => [h.record.id, h] as const));
    if (this.left.size)
      log(
        `resume: ${spool.path} holds ${this.left.size} finished episode(s) that waited for the run's order; each is written instead of played again when this run plays it with the same bank and settings`,
      );
  }

  /** The held episode of `job`, when one was played under exactly this job; a mismatching one is discarded. */
  take(job: EpisodeJob): HeldEpisode | undefined {
    const held = this.left.get(job.id);
    if (!held) return undefined;
    this.left.delete(job.id);
    const why = differs(held.playedWith, playedWith(job));
    if (why) {
      this.log(`resume: held episode ${job.id} was played with ${why} than this run plays it with now; discarded, it is played again`);
      this.spool.release(job.id);
      return undefined;
    }
    this.spooled.add(job.id);
    return held;
  }

  /** Spools a finished episode whose write must wait, unless it already is spooled. */
  keep(job: EpisodeJob, record: EpisodeRecord): void {
    if (this.spooled.has(record.id)) return;
    this.spool.hold(record, playedWith(job));
    this.spooled.add(record.id);
  }

  /** The episode's line is in episodes.jsonl: it leaves the spool. */
  written(id: string): void {
    if (!this.spooled.delete(id)) return;
    this.spool.release(id);
  }

  /** A run that stopped: the spool's folder goes if what it held is written; what is left waits for a resume. */
  tidy(): void {
    this.spool.removeIfEmpty();
  }

  /** A run that finished: held files no episode of it asked for are not its episodes; they go, and so does the spool. */
  finish(): void {
    for (const id of this.left.keys()) {
      this.log(`held episode ${id} is not an episode this run plays; discarded`);
      this.spool.release(id);
    }
    this.left.clear();
    this.spool.removeIfEmpty();
  }
}
