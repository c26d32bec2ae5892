import { describe, expect, it } from "vitest";
import { OrderedWrites } from "./ordered-writes.ts";

/** The run's writes in a sequential run's order, whatever order the work finishes in (docs/ARCHITECTURE.md §4). */

describe("OrderedWrites", () => {
  it("writes each slot once every earlier one is written, in the listed order", async () => {
    const out: string[] = [];
    const w = new OrderedWrites(["a1", "b1", "a2", "round:1"]);
    const write = (k: string) => () => void out.push(k);
    await w.fill("a2", write("a2"));
    await w.fill("round:1", write("round:1"));
    expect(out).toEqual([]);
    await w.fill("b1", write("b1"));
    expect(out).toEqual([]);
    await w.fill("a1", write("a1"));
    expect(out).toEqual(["a1", "b1", "a2", "round:1"]);
    expect(w.complete).toBe(true);
  });

  it("on a stop, drains what was handed in, in order, except the slots it is told to skip", async () => {
    const out: string[] = [];
    const w = new OrderedWrites(["a1", "b1", "a2", "round:1", "a3"]);
    const write = (k: string) => () => void out.push(k);
    await w.fill("a1", write("a1"));
    await w.fill("a3", write("a3"));
    await w.fill("a2", write("a2"));
    await w.fill("round:1", write("round:1"));
    expect(out).toEqual(["a1"]);
    await w.drain((k) => k.startsWith("round:"));
    expect(out).toEqual(["a1", "a2", "a3"]);
    expect(w.complete).toBe(false);
  });

  it("stops at a write that fails: later ones are not written, not even by a drain", async () => {
    const out: string[] = [];
    const w = new OrderedWrites(["a1", "b1", "a2"]);
    await w.fill("a2", () => void out.push("a2"));
    await w.fill("b1", () => void out.push("b1"));
    await expect(
      w.fill("a1", () => {
        throw new Error("ENOSPC: no space left on device");
      }),
    ).rejects.toThrow("ENOSPC");
    await w.drain(() => false);
    expect(out).toEqual([]);
  });

  it("refuses a slot it does not list, and one handed in twice", () => {
    const w = new OrderedWrites(["a1", "b1"]);
    expect(() => w.fill("c1", () => undefined)).toThrow(/no slot c1/);
    void w.fill("b1", () => undefined);
    expect(() => w.fill("b1", () => undefined)).toThrow(/slot b1 filled twice/);
    expect(() => new OrderedWrites(["a1", "a1"])).toThrow(/listed twice/);
  });

  it("says which slot's write would wait: one behind a slot not handed in, or behind a write still running", async () => {
    const w = new OrderedWrites(["a1", "b1", "a2", "b2"]);
    expect(w.waits("a1")).toBe(false);
    expect(w.waits("b1")).toBe(true);
    await w.fill("b1", () => undefined);
    expect(w.waits("a2")).toBe(true);
    let finish: () => void = () => undefined;
    const slow = new Promise<void>((r) => (finish = r));
    const written = w.fill("a1", () => slow);
    await Promise.resolve();
    // a1 is written (slowly) and b1 after it: a2 is next in line, yet would wait behind that write.
    expect(w.waits("a2")).toBe(true);
    finish();
    await written;
    expect(w.waits("a2")).toBe(false);
    expect(w.waits("b2")).toBe(true);
  });
});
