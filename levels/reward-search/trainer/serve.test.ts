import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { TrainerMessage, type HostMessage } from "./protocol.ts";
import { JobFailure, serveTrainer, type TrainerBackend } from "./serve.ts";

/** serveTrainer in-process, over a stream pair: the trainer side's rules without a child process. */
const harness = (train: TrainerBackend["train"]) => {
  const input = new PassThrough();
  const out: TrainerMessage[] = [];
  const waiters: Array<() => void> = [];
  const backend: TrainerBackend = { name: "t", version: "1", tasks: [{ id: "fake", title: "F", description: "d" }], train };
  const served = serveTrainer(backend, {
    input,
    write: (line) => {
      out.push(TrainerMessage.parse(JSON.parse(line)));
      waiters.splice(0).forEach((w) => w());
    },
    log: () => {},
  });
  const send = (m: HostMessage | string) => input.write(`${typeof m === "string" ? m : JSON.stringify(m)}\n`);
  const until = async (pred: (m: TrainerMessage[]) => boolean) => {
    while (!pred(out)) await new Promise<void>((r) => waiters.push(r));
  };
  return { out, send, until, served, input };
};
const train = (id: string, over: Record<string, unknown> = {}): HostMessage =>
  ({ type: "train", id, task: "fake", instance: 0, reward: "r", steps: 10, seed: 1, evalSeeds: [2, 3, 4], jobDir: "/tmp/j", ...over }) as HostMessage;
const result = {
  final: { fitness: 1, perSeed: [2, 3, 4].map((seed) => ({ seed, fitness: 1 })) },
  bestCheckpoint: { fitness: 1, step: 10 },
  components: {},
  episodeLength: [],
  fitnessCurve: [],
  steps: 10,
  wallMs: 1,
  policy: "/tmp/j/policy.json",
};
const errorsOf = (out: TrainerMessage[]) => out.filter((m) => m.type === "error").map((m) => m.type === "error" && [m.id, m.kind]);

describe("serveTrainer", () => {
  it("says hello first, answers bad lines with bad_request, and refuses repeated ids and overlapping seeds", async () => {
    const h = harness(async () => result);
    expect(h.out[0]).toMatchObject({ type: "hello", protocol: 1, concurrency: 1 });
    h.send("{ not json");
    h.send({ type: "train", id: "x" } as unknown as HostMessage);
    h.send(train("a"));
    h.send(train("a"));
    h.send(train("b", { evalSeeds: [1, 2, 3] }));
    h.send(train("c", { task: "other" }));
    await h.until((o) => o.filter((m) => m.type !== "hello").length >= 6);
    expect(errorsOf(h.out)).toEqual([
      [null, "bad_request"],
      ["x", "bad_request"],
      ["a", "bad_request"],
      ["b", "bad_request"],
      ["c", "unknown_task"],
    ]);
    expect(h.out.filter((m) => m.type === "result").map((m) => m.type === "result" && m.id)).toEqual(["a"]);
    h.send({ type: "shutdown" });
    await h.served;
  });

  it("runs jobs one at a time in order; cancel stops the running one and drops a queued one", async () => {
    const h = harness(
      (job, { signal, progress }) =>
        new Promise((resolve, reject) => {
          progress({ iteration: 0, steps: 1, fitness: null, episodeLength: null, components: {} });
          if (job.id === "quick") return resolve(result);
          signal.addEventListener("abort", () => reject(new Error("aborted")));
        }),
    );
    h.send(train("long"));
    h.send(train("queued"));
    h.send(train("quick"));
    await h.until((o) => o.some((m) => m.type === "progress"));
    h.send({ type: "cancel", id: "queued" });
    h.send({ type: "cancel", id: "long" });
    h.send({ type: "cancel", id: "never-sent" });
    await h.until((o) => o.some((m) => m.type === "result"));
    expect(errorsOf(h.out)).toEqual([
      ["queued", "cancelled"],
      ["long", "cancelled"],
    ]);
    expect(h.out.filter((m) => m.type === "progress").map((m) => m.type === "progress" && m.id)).toEqual(["long", "quick"]);
    h.input.end(); // end of stdin: same as shutdown
    await h.served;
  });

  it("a JobFailure keeps its kind and fault; any other throw is internal; shutdown cancels what is left", async () => {
    const h = harness(async (job, { signal }) => {
      if (job.id === "bad") throw new JobFailure("reward_code", "line 2: boom", { kind: "exception", message: "boom", line: 2 });
      if (job.id === "bug") throw new TypeError("x is undefined");
      await new Promise((r) => signal.addEventListener("abort", r));
      throw new Error("aborted");
    });
    h.send(train("bad"));
    h.send(train("bug"));
    h.send(train("hang"));
    h.send(train("waiting"));
    await h.until((o) => o.filter((m) => m.type === "error").length >= 2);
    h.send({ type: "shutdown" });
    await h.served;
    expect(h.out.find((m) => m.type === "error" && m.id === "bad")).toMatchObject({ kind: "reward_code", fault: { line: 2 } });
    expect(h.out.find((m) => m.type === "error" && m.id === "bug")).toMatchObject({ kind: "internal", message: /x is undefined/ });
    expect(errorsOf(h.out).slice(2)).toEqual([
      ["waiting", "cancelled"],
      ["hang", "cancelled"],
    ]);
  });

  it("enforces the job's own budgets", async () => {
    const h = harness(async (_job, { signal, progress }) => {
      for (let s = 100; !signal.aborted; s += 100) {
        progress({ iteration: s / 100, steps: s, fitness: null, episodeLength: null, components: {} });
        await new Promise((r) => setTimeout(r, 5));
      }
      throw new Error("aborted");
    });
    h.send(train("steps", { budget: { maxSteps: 250 } }));
    h.send(train("wall", { budget: { wallMs: 100 } }));
    await h.until((o) => o.filter((m) => m.type === "error").length >= 2);
    const [a, b] = h.out.filter((m) => m.type === "error");
    expect(a).toMatchObject({ id: "steps", kind: "budget_exceeded", message: /env-step budget of 250/ });
    expect(b).toMatchObject({ id: "wall", kind: "budget_exceeded", message: /wall-clock budget of 100 ms/ });
    expect(h.out.filter((m) => m.type === "progress" && m.id === "steps").length).toBe(3);
    h.send({ type: "shutdown" });
    await h.served;
  });
});
