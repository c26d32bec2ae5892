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

/** How the server answers the host: one protocol line per message, and a log line for the operator. */
interface Outbox {
  send(m: TrainerMessage): void;
  sendError(id: string | null, kind: ErrorKind, message: string, fault?: RewardFault): void;
  log(line: string): void;
}

const outboxOf = (io: ServeIo): Outbox => {
  const send = (m: TrainerMessage) => io.write(encodeLine(m));
  return {
    send,
    sendError: (id, kind, message, fault) => send({ type: "error", id, kind, message, ...(fault ? { fault } : {}) }),
    log: io.log,
  };
};

const sendHello = (out: Outbox, backend: TrainerBackend) =>
  out.send({
    type: "hello",
    protocol: TRAINER_PROTOCOL_VERSION,
    trainer: { name: backend.name, version: backend.version },
    tasks: [...backend.tasks],
    concurrency: 1,
  });

/** Stops a job once, for the first reason given; its answer will be an error of that kind. */
const stopJob = (q: Queued, kind: ErrorKind, message: string) => {
  if (q.stopReason) return;
  q.stopReason = kind;
  q.stopMessage = message;
  q.abort.abort();
};

const startWallClockBudget = (q: Queued): ReturnType<typeof setTimeout> | null => {
  const wallMs = q.job.budget?.wallMs;
  return wallMs ? setTimeout(() => stopJob(q, "budget_exceeded", `wall-clock budget of ${wallMs} ms exceeded`), wallMs) : null;
};

/** Forwards a job's progress to the host until it stops, and stops it once it passes its env-step budget. */
const progressReporter =
  (q: Queued, out: Outbox) =>
  (p: JobProgress): void => {
    if (q.stopReason) return;
    out.send({ type: "progress", id: q.job.id, ...p });
    const max = q.job.budget?.maxSteps;
    if (max !== undefined && p.steps > max) stopJob(q, "budget_exceeded", `env-step budget of ${max} exceeded (at ${p.steps} steps)`);
  };

const answerThrown = (q: Queued, e: unknown, startedMs: number, out: Outbox) => {
  const { job } = q;
  if (q.stopReason) out.sendError(job.id, q.stopReason, q.stopMessage);
  else if (e instanceof JobFailure) out.sendError(job.id, e.kind, e.message, e.fault);
  else {
    out.log(`job ${job.id} failed after ${Date.now() - startedMs} ms: ${(e as Error)?.stack ?? String(e)}`);
    out.sendError(job.id, "internal", `trainer fault: ${(e as Error)?.message ?? String(e)}`);
  }
};

/** Trains one job under its budgets and answers it with one `result` or `error` line. */
const runJob = async (backend: TrainerBackend, q: Queued, out: Outbox) => {
  const { job } = q;
  const startedMs = Date.now();
  const timer = startWallClockBudget(q);
  try {
    const result = await backend.train(job, { signal: q.abort.signal, progress: progressReporter(q, out) });
    if (q.stopReason) out.sendError(job.id, q.stopReason, q.stopMessage);
    else out.send({ type: "result", id: job.id, ...result });
  } catch (e) {
    answerThrown(q, e, startedMs, out);
  } finally {
    if (timer) clearTimeout(timer);
  }
};

/** Parses one input line into a host message, or answers it with `bad_request` and returns null. */
const parseHostLine = (line: string, out: Outbox): HostMessage | null => {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    out.sendError(null, "bad_request", `not a JSON line: ${line.slice(0, 120)}`);
    return null;
  }
  const parsed = HostMessage.safeParse(raw);
  if (!parsed.success) {
    const id = typeof (raw as { id?: unknown })?.id === "string" ? (raw as { id: string }).id : null;
    out.sendError(id, "bad_request", `not a valid host message: ${describeIssues(parsed.error)}`);
    return null;
  }
  return parsed.data;
};

/** The jobs of one session: the queue, the job running now, the ids already used, and the shutdown. */
class JobQueue {
  private readonly queue: Queued[] = [];
  private readonly known = new Set<string>();
  private running: Queued | null = null;
  private closing = false;
  private drained: () => void = () => {};
  /** Resolves once the session is closing and every job has answered. */
  readonly done = new Promise<void>((r) => (this.drained = r));

  constructor(
    private readonly backend: TrainerBackend,
    private readonly out: Outbox,
  ) {}

  handle(line: string) {
    if (!line.trim()) return;
    const m = parseHostLine(line, this.out);
    if (!m) return;
    switch (m.type) {
      case "train":
        return this.accept(m);
      case "cancel":
        return this.cancel(m.id);
      case "shutdown":
        return this.shutdown();
      default: {
        const never: never = m;
        throw new Error(`unhandled message ${JSON.stringify(never)}`);
      }
    }
  }

  shutdown() {
    if (this.closing) return;
    this.closing = true;
    for (const q of this.queue.splice(0)) this.out.sendError(q.job.id, "cancelled", "the trainer is shutting down");
    if (this.running) stopJob(this.running, "cancelled", "the trainer is shutting down");
    else this.drained();
  }

  private accept(m: TrainMessage) {
    const { backend, out } = this;
    if (this.closing) return out.sendError(m.id, "cancelled", "the trainer is shutting down");
    if (this.known.has(m.id)) return out.sendError(m.id, "bad_request", `job id ${m.id} was already used; send each job with a new id`);
    const problem = trainRequestProblem(m);
    if (problem) return out.sendError(m.id, "bad_request", problem);
    if (!backend.tasks.some((t) => t.id === m.task))
      return out.sendError(m.id, "unknown_task", `unknown task ${JSON.stringify(m.task)}; this trainer serves: ${backend.tasks.map((t) => t.id).join(", ")}`);
    this.known.add(m.id);
    this.queue.push({ job: m, abort: new AbortController(), stopReason: null, stopMessage: "" });
    void this.pump();
  }

  private cancel(id: string) {
    if (this.running?.job.id === id) return stopJob(this.running, "cancelled", `job ${id} cancelled by the host`);
    const i = this.queue.findIndex((q) => q.job.id === id);
    if (i >= 0) {
      this.queue.splice(i, 1);
      this.out.sendError(id, "cancelled", `job ${id} cancelled by the host before it started`);
    }
    // a job that already answered: nothing to do
  }

  private async pump() {
    if (this.running) return;
    while (this.queue.length) {
      this.running = this.queue.shift()!;
      await runJob(this.backend, this.running, this.out);
      this.running = null;
    }
    if (this.closing) this.drained();
  }
}

/** Serves the protocol until `shutdown` or the end of stdin; resolves once every job has answered. */
export const serveTrainer = async (backend: TrainerBackend, io: ServeIo = defaultIo()): Promise<void> => {
  const out = outboxOf(io);
  sendHello(out, backend);
  const jobs = new JobQueue(backend, out);
  const rl = createInterface({ input: io.input, crlfDelay: Infinity });
  rl.on("line", (line) => jobs.handle(line));
  rl.on("close", () => jobs.shutdown());
  await jobs.done;
  rl.close();
};
