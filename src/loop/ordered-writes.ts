import { InvariantError } from "../errors.ts";

type Write = () => void | Promise<void>;

/**
 * The run directory's writes in the run's order (docs/ARCHITECTURE.md §4): the slots are listed up front as a
 * sequential run makes them (offline episodes, each level's round 0, then per round every level's episodes, every
 * level's update, the round's snapshot and metrics); a slot's write is handed in when its work is done and runs
 * once every earlier slot's has. Levels advance independently, yet episodes.jsonl, bank-events.jsonl, banks/ and
 * metrics.json are written as one level after another would write them, on any pool size.
 */
export class OrderedWrites {
  private readonly index: Map<string, number>;
  private readonly ready = new Map<number, Write>();
  private next = 0;
  /** The first slot not handed in yet: every slot before it has been, or has been written. */
  private frontier = 0;
  private writing = false;
  private failed = false;
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly slots: readonly string[]) {
    this.index = new Map(slots.map((key, i) => [key, i] as const));
    if (this.index.size !== slots.length) throw new InvariantError(`ordered writes: a slot is listed twice in ${slots.join(", ")}`);
  }

  /** Hands in slot `key`'s write; resolves once the writes it let through have run, rejects if one failed. */
  fill(key: string, write: Write): Promise<void> {
    const i = this.index.get(key);
    if (i === undefined) throw new InvariantError(`ordered writes: no slot ${key}`);
    if (i < this.next || this.ready.has(i)) throw new InvariantError(`ordered writes: slot ${key} filled twice`);
    this.ready.set(i, write);
    while (this.ready.has(this.frontier)) this.frontier++;
    return this.flush();
  }

  /**
   * Whether slot `key`'s write, handed in now, would wait: for an earlier slot not handed in, or behind a write
   * still running. What waits is held in memory only, so its work is spooled (held-work.ts).
   */
  waits(key: string): boolean {
    return this.rank(key) > this.frontier || this.writing;
  }

  /** A slot's place in the run's order; one not listed (an eval record) after them all. */
  rank(key: string): number {
    return this.index.get(key) ?? this.slots.length;
  }

  /** Whether every slot has been written. */
  get complete(): boolean {
    return this.next === this.slots.length;
  }

  /** Runs every due write, in order; the first that throws stops all later ones. */
  flush(): Promise<void> {
    this.chain = this.chain.then(async () => {
      while (this.ready.has(this.next)) {
        const write = this.ready.get(this.next)!;
        this.ready.delete(this.next);
        this.next++;
        this.writing = true;
        try {
          await write();
        } catch (e) {
          this.failed = true;
          throw e;
        } finally {
          this.writing = false;
        }
      }
    });
    return this.chain;
  }

  /**
   * A run that stops keeps what finished: after the due writes, every slot already handed in is written, in
   * order, except those `skip` names (writes that need all earlier slots, such as a round's snapshot). A level's
   * slots are handed in in its own order, so each level's files stay a prefix of what a whole run writes.
   * Nothing more is written once a write failed.
   */
  async drain(skip: (key: string) => boolean): Promise<void> {
    await this.flush().catch(() => undefined);
    if (this.failed) return;
    for (const i of [...this.ready.keys()].sort((a, b) => a - b)) {
      const write = this.ready.get(i)!;
      this.ready.delete(i);
      if (!skip(this.slots[i]!)) await write();
    }
  }
}
