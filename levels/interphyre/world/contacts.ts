import { SUCCESS_HOLD_S, TIME_STEP_S } from "./constants.ts";

/** One fixture-level contact event, as Interphyre's contact log records it. */
export interface ContactEvent {
  /** 1-based step during which the event happened. */
  step: number;
  event: "begin" | "end";
  a: string;
  b: string;
}

const pairKey = (a: string, b: string): string => (a < b ? `${a}|${b}` : `${b}|${a}`);

/**
 * Contacts tracked per body pair, exactly like Interphyre's GoalContactListener (docs/spec/interphyre.md §1.6): a begin
 * on any fixture pair (re)starts the pair's timer, an end on any fixture pair drops it, and the clock is a
 * float64 accumulated by `+= 1/60` after each step, so success fires after 180 or 181 touching steps as there.
 */
export class ContactTracker {
  /** current_time in Interphyre: seconds simulated so far, by repeated addition. */
  time = 0;
  /** Steps completed. */
  step = 0;
  private readonly start = new Map<string, number>();
  readonly log: ContactEvent[] = [];
  /** The last pair asked about and its key: the goal pair is asked after every step, so its key is kept. */
  private asked = { a: "", b: "", key: pairKey("", "") };

  constructor(private readonly recordLog = true) {}

  private keyOf(a: string, b: string): string {
    const asked = this.asked;
    if (asked.a !== a || asked.b !== b) this.asked = { a, b, key: pairKey(a, b) };
    return this.asked.key;
  }

  onContact(kind: "begin" | "end", a: string, b: string): void {
    const key = pairKey(a, b);
    if (kind === "begin") this.start.set(key, this.time);
    else this.start.delete(key);
    if (this.recordLog) this.log.push({ step: this.step + 1, event: kind, a, b });
  }

  /** Called after each physics step. */
  tick(): void {
    this.time += TIME_STEP_S;
    this.step += 1;
  }

  inContact(a: string, b: string): boolean {
    return this.start.has(this.keyOf(a, b));
  }

  /** Seconds the pair has been in contact (Interphyre's get_contact_duration), 0 when apart. */
  duration(a: string, b: string): number {
    const s = this.start.get(this.keyOf(a, b));
    return s === undefined ? 0 : this.time - s;
  }

  heldFor(a: string, b: string, seconds = SUCCESS_HOLD_S): boolean {
    const s = this.start.get(this.keyOf(a, b));
    return s !== undefined && this.time - s >= seconds;
  }

  /** Pairs touching now, as "a|b" keys. */
  pairs(): string[] {
    return [...this.start.keys()];
  }
}
