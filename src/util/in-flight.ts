/**
 * Work in flight by key: the same work asked for again while one runs can wait for that run instead of doing it
 * twice. A run that fails is not handed on: whoever waited for it does the work itself.
 */
export class InFlight<T> {
  private readonly runs = new Map<string, Promise<T>>();

  /**
   * The run under `key`, when one is: what it gives, or undefined when it fails. Undefined at once when none is,
   * so that a caller that starts its own run next is found by the one asking after it.
   */
  running(key: string): Promise<T | undefined> | undefined {
    return this.runs.get(key)?.catch(() => undefined);
  }

  /** `work`, kept under `key` until it ends (unless a run is kept there already). */
  start(key: string, work: Promise<T>): Promise<T> {
    if (!this.runs.has(key)) {
      this.runs.set(key, work);
      void work
        .catch(() => {})
        .finally(() => {
          if (this.runs.get(key) === work) this.runs.delete(key);
        });
    }
    return work;
  }
}
