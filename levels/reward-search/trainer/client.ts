import { fileURLToPath } from "node:url";
import { execa, type ResultPromise } from "execa";
import { ConfigError } from "../../../src/errors.ts";
import { DEFAULT_DEADLINE, deadlineMs, MAX_TIMER_MS, MAX_TRAINER_LINE_BYTES, type DeadlineRule } from "./host-limits.ts";
import { readBoundedLines } from "./line-reader.ts";
import {
  describeIssues,
  encodeLine,
  HelloMessage,
  TRAINER_PROTOCOL_VERSION,
  TrainerMessage,
  type ErrorMessage,
  type HostMessage,
  type JobBudget,
  type ProgressMessage,
  type ResultMessage,
  type TrainMessage,
} from "./protocol.ts";
import { fitnessRangeOf, resultProblem } from "./result-check.ts";

/**
 * The host side of the trainer protocol: starts a trainer command with execa, checks its hello, sends jobs,
 * streams their progress and enforces per-job budgets and deadlines. A trainer that is missing, exits, speaks
 * another protocol version, prints anything but protocol lines, a line over the length limit or a result that
 * fails the host's check (result-check.ts) is a TrainerError naming the command; every job in flight fails with it.
 */

const builtinTrainerScript = fileURLToPath(new URL("../../../bin/hexa-trainer.js", import.meta.url));
const builtinTrainerCommand = (): string[] => [process.execPath, builtinTrainerScript];

export type TrainerFailure = "not_found" | "exited" | "protocol" | "version" | "timeout";

/** The trainer command cannot be used: the user must fix `trainer.command` (or the trainer). */
export class TrainerError extends ConfigError {
  constructor(
    readonly reason: TrainerFailure,
    message: string,
  ) {
    super(message);
  }
}

export const describeCommand = (command: readonly string[]): string =>
  command[1] === builtinTrainerScript && command.length === 2
    ? "the built-in trainer (bin/hexa-trainer.js)"
    : `trainer command ${JSON.stringify(command.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(" "))}`;

export type JobResult = Omit<ResultMessage, "type" | "id">;
export type JobError = Omit<ErrorMessage, "type" | "id">;
export type JobProgress = Omit<ProgressMessage, "type" | "id">;
/** How one job ended: a result, or an error the caller can show (reward fault, unknown task, budget, cancel). */
export type JobOutcome = { kind: "result"; result: JobResult } | { kind: "error"; error: JobError };

export type TrainJob = Omit<TrainMessage, "type" | "id" | "budget">;

interface TrainOptions {
  onProgress?: (p: JobProgress) => void;
  signal?: AbortSignal;
  budget?: JobBudget;
  /** The id sent to the trainer (default: a fresh one per client). */
  id?: string;
}

export interface TrainerClient {
  readonly command: readonly string[];
  readonly hello: HelloMessage;
  /** Milliseconds from spawn to a valid hello. */
  readonly startMs: number;
  /** Null while usable; the error that ended it otherwise. */
  readonly failure: TrainerError | null;
  train(job: TrainJob, opts?: TrainOptions): Promise<JobOutcome>;
  /** Sends `shutdown`, waits for the exit (killing it after a grace period). */
  close(): Promise<void>;
  /** How the process ended; `killed` when the host had to kill it. */
  readonly exit: Promise<TrainerExit>;
}

interface TrainerExit {
  code: number | null;
  signal: string | null;
  killed: boolean;
}

export interface StartOptions {
  command?: readonly string[];
  /** Milliseconds to wait for the hello. */
  startTimeoutMs?: number;
  /** Milliseconds a trainer has to answer a cancel before it is killed. */
  cancelGraceMs?: number;
  /** Each stderr line of the trainer (its logs). */
  onLog?: (line: string) => void;
  env?: Record<string, string>;
  /** The longest stdout or stderr line read (default MAX_TRAINER_LINE_BYTES); a longer stdout line fails the trainer. */
  maxLineBytes?: number;
  /** A job's deadline when its budget sets no wallMs (default: host-limits.ts). */
  deadline?: DeadlineRule;
}

type Pending = {
  id: string;
  job: TrainJob;
  resolve(o: JobOutcome): void;
  reject(e: Error): void;
  opts: TrainOptions;
  t0: number;
  timers: NodeJS.Timeout[];
  cleanup: Array<() => void>;
  /** Why the host stopped the job (budget, abort); the trainer's answer is then reported as this. */
  stopped: JobError | null;
};

const STDERR_TAIL = 2000;

export const startTrainer = async (opts: StartOptions = {}): Promise<TrainerClient> => {
  const command = opts.command ?? builtinTrainerCommand();
  if (command.length === 0) throw new ConfigError("trainer.command is empty; give a program and its arguments, or leave it unset");
  const name = describeCommand(command);
  const startTimeoutMs = opts.startTimeoutMs ?? 60_000;
  const cancelGraceMs = opts.cancelGraceMs ?? 5_000;
  const maxLineBytes = opts.maxLineBytes ?? MAX_TRAINER_LINE_BYTES;
  const t0 = Date.now();

  const sub: ResultPromise = execa(command[0]!, command.slice(1), {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    buffer: false,
    reject: false,
    cleanup: true,
    forceKillAfterDelay: 2_000,
    ...(opts.env ? { env: opts.env } : {}),
  });
  sub.stdin?.on("error", () => {}); // EPIPE after the trainer died: reported through its exit instead

  let stderrTail = "";
  const onStderr = (line: string) => {
    stderrTail = `${stderrTail}\n${line}`.slice(-STDERR_TAIL);
    opts.onLog?.(line);
  };
  readBoundedLines(sub.stderr!, maxLineBytes, onStderr, () => onStderr(`(a stderr line longer than ${maxLineBytes} bytes, not kept)`));
  const withStderr = (msg: string) => (stderrTail.trim() ? `${msg}; its stderr ended with:\n${stderrTail.trim()}` : msg);

  const pending = new Map<string, Pending>();
  const finished = new Set<string>();
  const waiting: Array<() => void> = [];
  let failure: TrainerError | null = null;
  let closing = false;
  let hello: HelloMessage | null = null;
  let helloWait: { resolve(h: HelloMessage): void; reject(e: Error): void } | null = null;
  let seq = 0;
  let killedByHost = false;
  const kill = () => {
    killedByHost = true;
    sub.kill("SIGKILL");
  };

  const fail = (e: TrainerError) => {
    if (failure) return;
    failure = e;
    helloWait?.reject(e);
    for (const p of pending.values()) {
      p.timers.forEach(clearTimeout);
      p.cleanup.forEach((f) => f());
      p.reject(e);
    }
    pending.clear();
    waiting.splice(0).forEach((w) => w());
    if (sub.exitCode === null) kill();
  };

  const send = (m: HostMessage) => {
    if (!sub.stdin?.writable) return;
    sub.stdin.write(encodeLine(m));
  };

  let exitInfo: TrainerExit = { code: null, signal: null, killed: false };
  const exited = sub.then((r) => {
    exitInfo = { code: r.exitCode ?? null, signal: r.signal ?? null, killed: killedByHost };
    const how = r.signal ? `was killed by ${r.signal}` : `exited with code ${r.exitCode}`;
    const code = (r as { code?: string }).code ?? (r.cause as { code?: string } | undefined)?.code;
    if (code === "ENOENT" || /ENOENT/.test(r.message ?? "")) {
      fail(
        new TrainerError(
          "not_found",
          `${name}: command not found (${command[0]}); set trainer.command to an executable that speaks hexa trainer protocol ${TRAINER_PROTOCOL_VERSION}, or leave it unset for the built-in trainer`,
        ),
      );
    } else if (!closing) {
      const when = hello ? (pending.size ? `with ${pending.size} job(s) in flight (${[...pending.keys()].join(", ")})` : "between jobs") : "before its hello";
      fail(new TrainerError("exited", withStderr(`${name}: ${how} ${when}`)));
    } else if (!failure) {
      failure = new TrainerError("exited", `${name}: closed`);
      for (const p of pending.values()) p.reject(failure);
      pending.clear();
    }
  });

  const protocolError = (detail: string) =>
    fail(new TrainerError("protocol", withStderr(`${name}: ${detail}; a trainer must print only JSON protocol lines on stdout (logs go to stderr)`)));

  const finish = (p: Pending, outcome: JobOutcome) => {
    p.timers.forEach(clearTimeout);
    p.cleanup.forEach((f) => f());
    pending.delete(p.id);
    finished.add(p.id);
    p.resolve(p.stopped ? { kind: "error", error: p.stopped } : outcome);
    waiting.shift()?.();
  };

  /** Stops a job from the host's side: cancel, and kill the trainer if it does not answer in time. */
  const stopJob = (p: Pending, why: JobError) => {
    if (p.stopped) return;
    p.stopped = why;
    send({ type: "cancel", id: p.id });
    p.timers.push(
      setTimeout(() => {
        if (!pending.has(p.id)) return;
        opts.onLog?.(`${name}: job ${p.id} did not answer cancel within ${cancelGraceMs} ms; killing the trainer`);
        finish(p, { kind: "error", error: why });
        fail(new TrainerError("timeout", `${name}: did not answer cancel of job ${p.id} within ${cancelGraceMs} ms and was killed`));
      }, cancelGraceMs),
    );
  };

  const onLine = (line: string) => {
    if (failure) return;
    if (!line.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      return protocolError(`printed a line that is not JSON (got ${JSON.stringify(line.slice(0, 120))})`);
    }
    if (!hello) {
      const r = raw as { type?: unknown; protocol?: unknown };
      if (r?.type !== "hello") return protocolError(`first line must be a hello message (got ${JSON.stringify(line.slice(0, 120))})`);
      if (r.protocol !== TRAINER_PROTOCOL_VERSION)
        return fail(
          new TrainerError(
            "version",
            `${name} speaks trainer protocol ${JSON.stringify(r.protocol)}, hexa speaks protocol ${TRAINER_PROTOCOL_VERSION}; update the trainer, or set trainer.command to one that speaks protocol ${TRAINER_PROTOCOL_VERSION}`,
          ),
        );
      const h = HelloMessage.safeParse(raw);
      if (!h.success) return protocolError(`sent an invalid hello (${describeIssues(h.error)})`);
      hello = h.data;
      helloWait?.resolve(hello);
      return;
    }
    const parsed = TrainerMessage.safeParse(raw);
    if (!parsed.success)
      return protocolError(`printed an invalid protocol message (${describeIssues(parsed.error)}; got ${JSON.stringify(line.slice(0, 160))})`);
    const m = parsed.data;
    if (m.type === "hello") return protocolError("sent a second hello");
    if (m.type === "error" && m.id === null) {
      opts.onLog?.(`${name}: error without a job id: ${m.kind}: ${m.message}`);
      return;
    }
    const p = pending.get(m.id!);
    if (!p) {
      if (finished.has(m.id!)) return; // a late answer to a job the host already stopped
      return protocolError(`answered job id ${JSON.stringify(m.id)}, which the host never sent`);
    }
    switch (m.type) {
      case "progress": {
        const { type: _t, id: _i, ...progress } = m;
        const max = p.opts.budget?.maxSteps;
        if (max !== undefined && m.steps > max)
          stopJob(p, {
            kind: "budget_exceeded",
            message: `budget exceeded: job ${p.id} reached ${m.steps} env steps, over its budget of ${max}; raise the step budget or lower steps`,
          });
        if (!p.stopped) p.opts.onProgress?.(progress);
        return;
      }
      case "result": {
        const { type: _t, id: _i, ...result } = m;
        const problem = p.stopped ? null : resultProblem(p.job, result, fitnessRangeOf(p.job.task, hello));
        if (problem) return fail(new TrainerError("protocol", withStderr(`${name}: result of job ${p.id}: ${problem}; the host records no such result`)));
        return finish(p, { kind: "result", result });
      }
      case "error": {
        const { type: _t, id: _i, ...error } = m;
        return finish(p, { kind: "error", error });
      }
      default: {
        const never: never = m;
        return protocolError(`sent an unexpected message ${JSON.stringify(never)}`);
      }
    }
  };
  readBoundedLines(sub.stdout!, maxLineBytes, onLine, () =>
    protocolError(`printed a line longer than ${maxLineBytes} bytes, the most a protocol line may hold (a result is far smaller)`),
  );

  const helloMsg = await new Promise<HelloMessage>((resolve, reject) => {
    if (failure) return reject(failure);
    const timer = setTimeout(
      () =>
        fail(
          new TrainerError(
            "timeout",
            withStderr(`${name}: no hello within ${startTimeoutMs} ms; a trainer must print its hello line on stdout as soon as it starts`),
          ),
        ),
      startTimeoutMs,
    );
    const clear = () => clearTimeout(timer);
    helloWait = {
      resolve: (h) => (clear(), resolve(h)),
      reject: (e) => (clear(), reject(e)),
    };
  });
  const startMs = Date.now() - t0;
  const concurrency = helloMsg.concurrency ?? 1;

  const train = async (job: TrainJob, topts: TrainOptions = {}): Promise<JobOutcome> => {
    while (!failure && pending.size >= concurrency) await new Promise<void>((r) => waiting.push(r));
    if (failure) throw failure;
    const id = topts.id ?? `j${++seq}`;
    if (pending.has(id) || finished.has(id)) throw new ConfigError(`job id ${id} was already used on ${name}; give each job its own id`);
    return new Promise<JobOutcome>((resolve, reject) => {
      const p: Pending = { id, job, resolve, reject, opts: topts, t0: Date.now(), timers: [], cleanup: [], stopped: null };
      pending.set(id, p);
      const budgetMs = topts.budget?.wallMs;
      const wallMs = budgetMs ?? deadlineMs(job.steps, opts.deadline ?? DEFAULT_DEADLINE);
      const what =
        budgetMs === undefined
          ? `its default deadline of ${wallMs} ms (for ${job.steps} env steps; docs/trainer-protocol.md)`
          : `its wall-clock budget of ${wallMs} ms`;
      const onDeadline = () =>
        stopJob(p, {
          kind: "budget_exceeded",
          message: `budget exceeded: job ${id} ran past ${what} on ${name} and was cancelled; raise trainer.wallMs (hexa search: --wall-ms) or lower steps`,
        });
      p.timers.push(setTimeout(onDeadline, Math.min(wallMs, MAX_TIMER_MS)));
      const signal = topts.signal;
      if (signal) {
        const onAbort = () => stopJob(p, { kind: "cancelled", message: `job ${id} cancelled` });
        if (signal.aborted) onAbort();
        else {
          signal.addEventListener("abort", onAbort, { once: true });
          p.cleanup.push(() => signal.removeEventListener("abort", onAbort));
        }
      }
      send({ type: "train", id, ...job, ...(topts.budget ? { budget: topts.budget } : {}) });
    });
  };

  const close = async () => {
    if (closing) return void (await exited);
    closing = true;
    if (sub.exitCode === null && !failure) {
      send({ type: "shutdown" });
      sub.stdin?.end();
      const timer = setTimeout(kill, cancelGraceMs);
      await exited;
      clearTimeout(timer);
    } else {
      if (sub.exitCode === null) kill();
      await exited;
    }
  };

  return {
    command,
    hello: helloMsg,
    startMs,
    get failure() {
      return failure;
    },
    train,
    close,
    exit: exited.then(() => exitInfo),
  };
};
