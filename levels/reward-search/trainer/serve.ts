import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import {
  describeIssues,
  encodeLine,
  HostMessage,
  TRAINER_PROTOCOL_VERSION,
  trainRequestProblem,
  type ErrorKind,
  type ProgressMessage,
  type ResultMessage,
  type RewardFault,
  type TaskDescriptor,
  type TrainerMessage,
  type TrainMessage,
} from "./protocol.ts";

/**
 * The trainer side of the protocol, with the training itself passed in: the built-in trainer (main.ts) wires
 * the sandbox and PPO into it, and tests wire fakes. Jobs run one at a time, in the order they came.
 */

/** An expected failure of one job, sent back as an `error` message of this kind. */
export class JobFailure extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly fault?: RewardFault,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

type JobProgress = Omit<ProgressMessage, "type" | "id">;
export type JobResult = Omit<ResultMessage, "type" | "id">;

export interface TrainerBackend {
  name: string;
  version: string;
  tasks: readonly TaskDescriptor[];
  /** Trains one job. Throws JobFailure for a fault the host should hear about; stops soon after `signal` aborts. */
  train(job: TrainMessage, ctx: { signal: AbortSignal; progress(p: JobProgress): void }): Promise<JobResult>;
}

export interface ServeIo {
  input: Readable;
  write(line: string): void;
  log(line: string): void;
}

const defaultIo = (): ServeIo => ({
  input: process.stdin,
  write: (line) => process.stdout.write(line),
  log: (line) => process.stderr.write(`${line}\n`),
});

type Queued = { job: TrainMessage; abort: AbortController; stopReason: ErrorKind | null; stopMessage: string };

/** Serves the protocol until `shutdown` or the end of stdin; resolves once every job has answered. */
export const serveTrainer = async (backend: TrainerBackend, io: ServeIo = defaultIo()): Promise<void> => {
  const send = (m: TrainerMessage) => io.write(encodeLine(m));
  const sendError = (id: string | null, kind: ErrorKind, message: string, fault?: RewardFault) =>
    send({ type: "error", id, kind, message, ...(fault ? { fault } : {}) });

  send({
    type: "hello",
    protocol: TRAINER_PROTOCOL_VERSION,
    trainer: { name: backend.name, version: backend.version },
    tasks: [...backend.tasks],
    concurrency: 1,
  });

  const queue: Queued[] = [];
  const known = new Set<string>();
  let running: Queued | null = null;
  let closing = false;
  let drained: () => void = () => {};
  const done = new Promise<void>((r) => (drained = r));

  const stop = (q: Queued, kind: ErrorKind, message: string) => {
    if (q.stopReason) return;
    q.stopReason = kind;
    q.stopMessage = message;
    q.abort.abort();
  };

  const runOne = async (q: Queued) => {
    const { job } = q;
    const t0 = Date.now();
    const timer = job.budget?.wallMs
      ? setTimeout(() => stop(q, "budget_exceeded", `wall-clock budget of ${job.budget!.wallMs} ms exceeded`), job.budget.wallMs)
      : null;
    try {
      const result = await backend.train(job, {
        signal: q.abort.signal,
        progress: (p) => {
          if (q.stopReason) return;
          send({ type: "progress", id: job.id, ...p });
          const max = job.budget?.maxSteps;
          if (max !== undefined && p.steps > max) stop(q, "budget_exceeded", `env-step budget of ${max} exceeded (at ${p.steps} steps)`);
        },
      });
      if (q.stopReason) sendError(job.id, q.stopReason, q.stopMessage);
      else send({ type: "result", id: job.id, ...result });
    } catch (e) {
      if (q.stopReason) sendError(job.id, q.stopReason, q.stopMessage);
      else if (e instanceof JobFailure) sendError(job.id, e.kind, e.message, e.fault);
      else {
        io.log(`job ${job.id} failed after ${Date.now() - t0} ms: ${(e as Error)?.stack ?? String(e)}`);
        sendError(job.id, "internal", `trainer fault: ${(e as Error)?.message ?? String(e)}`);
      }
    } finally {
      if (timer) clearTimeout(timer);
    }
  };

  const pump = async () => {
    if (running) return;
    while (queue.length) {
      running = queue.shift()!;
      await runOne(running);
      running = null;
    }
    if (closing) drained();
  };

  const handle = (line: string) => {
    if (!line.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      sendError(null, "bad_request", `not a JSON line: ${line.slice(0, 120)}`);
      return;
    }
    const parsed = HostMessage.safeParse(raw);
    if (!parsed.success) {
      const id = typeof (raw as { id?: unknown })?.id === "string" ? (raw as { id: string }).id : null;
      sendError(id, "bad_request", `not a valid host message: ${describeIssues(parsed.error)}`);
      return;
    }
    const m = parsed.data;
    switch (m.type) {
      case "train": {
        if (closing) return sendError(m.id, "cancelled", "the trainer is shutting down");
        if (known.has(m.id)) return sendError(m.id, "bad_request", `job id ${m.id} was already used; send each job with a new id`);
        const problem = trainRequestProblem(m);
        if (problem) return sendError(m.id, "bad_request", problem);
        if (!backend.tasks.some((t) => t.id === m.task))
          return sendError(m.id, "unknown_task", `unknown task ${JSON.stringify(m.task)}; this trainer serves: ${backend.tasks.map((t) => t.id).join(", ")}`);
        known.add(m.id);
        queue.push({ job: m, abort: new AbortController(), stopReason: null, stopMessage: "" });
        void pump();
        return;
      }
      case "cancel": {
        if (running?.job.id === m.id) return stop(running, "cancelled", `job ${m.id} cancelled by the host`);
        const i = queue.findIndex((q) => q.job.id === m.id);
        if (i >= 0) {
          queue.splice(i, 1);
          sendError(m.id, "cancelled", `job ${m.id} cancelled by the host before it started`);
        }
        return; // a job that already answered: nothing to do
      }
      case "shutdown":
        return shutdown();
      default: {
        const never: never = m;
        throw new Error(`unhandled message ${JSON.stringify(never)}`);
      }
    }
  };

  const shutdown = () => {
    if (closing) return;
    closing = true;
    for (const q of queue.splice(0)) sendError(q.job.id, "cancelled", "the trainer is shutting down");
    if (running) stop(running, "cancelled", "the trainer is shutting down");
    else drained();
  };

  const rl = createInterface({ input: io.input, crlfDelay: Infinity });
  rl.on("line", handle);
  rl.on("close", shutdown);
  await done;
  rl.close();
};
