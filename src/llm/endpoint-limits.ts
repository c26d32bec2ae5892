import { ConfigError } from "../errors.ts";
import { concurrencyOf } from "./config.ts";

/** At most `size` callers inside `run` at once; the rest wait in arrival order. */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly size: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active += 1;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `active` counts it without a gap a newcomer could take.
      if (next) next();
      else this.active -= 1;
    }
  }
}

/** One semaphore per endpoint (baseURL), shared by every model that calls it. */
export class EndpointLimits {
  private readonly byEndpoint = new Map<string, Semaphore>();

  /**
   * The endpoint's semaphore; `where` names the config field in the error when two roles disagree on its size.
   * A role that sets no concurrency takes the endpoint's limit, or makes it with the default (config.ts).
   */
  for(baseURL: string, concurrency: number | undefined, where: string): Semaphore {
    const existing = this.byEndpoint.get(baseURL);
    if (existing) {
      if (concurrency !== undefined && existing.size !== concurrency) {
        throw new ConfigError(
          `${where}.concurrency: ${baseURL} is already limited to ${existing.size} (got ${concurrency}); ` +
            `give every role on one endpoint the same concurrency`,
        );
      }
      return existing;
    }
    const created = new Semaphore(concurrency ?? concurrencyOf({ baseURL }));
    this.byEndpoint.set(baseURL, created);
    return created;
  }
}

/** The process-wide limits: models built without their own share these, so one endpoint has one limit. */
export const sharedEndpointLimits = new EndpointLimits();
