import { describe, expect, it } from "vitest";
import { InFlight } from "./in-flight.ts";

const deferred = <T>() => {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((a, b) => {
    resolve = a;
    reject = b;
  });
  return { promise, resolve, reject };
};

describe("work in flight by key", () => {
  it("hands a run's result to whoever asks under its key while it runs, and forgets the run once it ends", async () => {
    const flights = new InFlight<number>();
    expect(flights.running("k")).toBeUndefined();
    const work = deferred<number>();
    const started = flights.start("k", work.promise);
    const waited = flights.running("k");
    expect(flights.running("other")).toBeUndefined();
    work.resolve(7);
    expect([await started, await waited]).toEqual([7, 7]);
    await new Promise((r) => setTimeout(r, 0));
    expect(flights.running("k")).toBeUndefined();
  });

  it("does not hand on a failure: the waiter is told nothing, and its own run is kept after the failed one ends", async () => {
    const flights = new InFlight<number>();
    const failing = deferred<number>();
    const first = flights.start("k", failing.promise).catch((e: Error) => e.message);
    const waited = flights.running("k")!;
    failing.reject(new Error("trainer died"));
    expect(await first).toBe("trainer died");
    expect(await waited).toBeUndefined();
    await new Promise((r) => setTimeout(r, 0));
    const again = deferred<number>();
    flights.start("k", again.promise);
    const second = flights.running("k")!;
    again.resolve(3);
    expect(await second).toBe(3);
  });

  it("keeps the first run under a key when a second is started beside it", async () => {
    const flights = new InFlight<number>();
    const a = deferred<number>();
    const b = deferred<number>();
    flights.start("k", a.promise);
    expect(await flights.start("k", (b.resolve(2), b.promise))).toBe(2);
    const waited = flights.running("k")!;
    a.resolve(1);
    expect(await waited).toBe(1);
  });
});
