import { startTrainer, type StartOptions, type TrainerClient } from "./client.ts";

/**
 * The trainer processes behind a pool: an idle one is reused, a new one starts while fewer than `size` run,
 * and otherwise a job waits for the next release. A failed trainer is closed on release and its place freed.
 */
export class TrainerProcesses {
  private readonly idle: TrainerClient[] = [];
  private readonly waiting: Array<(c: TrainerClient | null) => void> = [];
  private readonly all = new Set<TrainerClient>();
  private live = 0;
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly start: StartOptions,
  ) {}

  async acquire(): Promise<TrainerClient> {
    if (this.closed) throw new Error("the trainer pool is closed");
    const c = this.idle.pop();
    if (c) return c;
    if (this.live < this.size) return this.spawn();
    const got = await new Promise<TrainerClient | null>((r) => this.waiting.push(r));
    return got ?? this.acquire();
  }

  release(c: TrainerClient): void {
    if (c.failure || this.closed) {
      this.all.delete(c);
      this.live--;
      void c.close();
      this.waiting.shift()?.(null);
      return;
    }
    const w = this.waiting.shift();
    if (w) w(c);
    else this.idle.push(c);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.waiting.splice(0).forEach((w) => w(null));
    this.idle.length = 0;
    await Promise.all([...this.all].map((c) => c.close()));
    this.all.clear();
  }

  private async spawn(): Promise<TrainerClient> {
    this.live++;
    try {
      const c = await startTrainer(this.start);
      this.all.add(c);
      return c;
    } catch (e) {
      this.live--;
      this.waiting.shift()?.(null);
      throw e;
    }
  }
}
