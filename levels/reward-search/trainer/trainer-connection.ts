import type { ResultPromise } from "execa";
import { ConfigError } from "../../../src/errors.ts";
import { TrainerError, type JobError, type JobOutcome, type StartOptions, type TrainerExit, type TrainJob, type TrainOptions } from "./client-types.ts";
import { DEFAULT_DEADLINE, deadlineMs, MAX_TIMER_MS } from "./host-limits.ts";
import { describeIssues, encodeLine, HelloMessage, TRAINER_PROTOCOL_VERSION, TrainerMessage, type HostMessage } from "./protocol.ts";
import { fitnessRangeOf, resultProblem } from "./result-check.ts";
import { JobTable, type PendingJob } from "./trainer-jobs.ts";
import { TrainerStateMachine } from "./trainer-state.ts";

const STDERR_TAIL = 2000;

type ExitResult = Awaited<ResultPromise>;

/**
 * One trainer process behind the client (client.ts): its state (trainer-state.ts), its jobs in flight
 * (trainer-jobs.ts), and the handlers of what it prints and how it exits.
 */
export class TrainerConnection {
  readonly machine = new TrainerStateMachine();
  readonly jobs = new JobTable();
  readonly exited: Promise<void>;
  exitInfo: TrainerExit = { code: null, signal: null, killed: false };
  #stderrTail = "";
  #killedByHost = false;
  #seq = 0;
  #helloWait: { resolve(h: HelloMessage): void; reject(e: Error): void } | null = null;

  constructor(
    readonly sub: ResultPromise,
    readonly command: readonly string[],
    readonly name: string,
    readonly o: StartOptions & { cancelGraceMs: number },
  ) {
    this.exited = sub.then((r) => this.onExit(r));
  }

  onStderr(line: string): void {
    this.#stderrTail = `${this.#stderrTail}\n${line}`.slice(-STDERR_TAIL);
    this.o.onLog?.(line);
  }

  withStderr(msg: string): string {
    return this.#stderrTail.trim() ? `${msg}; its stderr ended with:\n${this.#stderrTail.trim()}` : msg;
  }

  kill(): void {
    this.#killedByHost = true;
    this.sub.kill("SIGKILL");
  }

  /** Ends the trainer with an error (the first one wins): the hello wait and every job in flight fail with it. */
  fail(e: TrainerError): void {
    if (this.machine.failure) return;
    this.machine.to({ name: "failed", error: e, hello: this.machine.hello });
    this.#helloWait?.reject(e);
    this.jobs.rejectAll(e);
    if (this.sub.exitCode === null) this.kill();
  }

  send(m: HostMessage): void {
    if (!this.sub.stdin?.writable) return;
    this.sub.stdin.write(encodeLine(m));
  }

  protocolError(detail: string): void {
    this.fail(
      new TrainerError("protocol", this.withStderr(`${this.name}: ${detail}; a trainer must print only JSON protocol lines on stdout (logs go to stderr)`)),
    );
  }

  private onExit(r: ExitResult): void {
    this.exitInfo = { code: r.exitCode ?? null, signal: r.signal ?? null, killed: this.#killedByHost };
    const how = r.signal ? `was killed by ${r.signal}` : `exited with code ${r.exitCode}`;
    const code = (r as { code?: string }).code ?? (r.cause as { code?: string } | undefined)?.code;
    const state = this.machine.state.name;
    if (code === "ENOENT" || /ENOENT/.test(r.message ?? "")) {
      this.fail(
        new TrainerError(
          "not_found",
          `${this.name}: command not found (${this.command[0]}); set trainer.command to an executable that speaks hexa trainer protocol ${TRAINER_PROTOCOL_VERSION}, or leave it unset for the built-in trainer`,
        ),
      );
    } else if (state === "starting" || state === "ready") {
      const n = this.jobs.size;
      const when = state === "ready" ? (n ? `with ${n} job(s) in flight (${this.jobs.ids().join(", ")})` : "between jobs") : "before its hello";
      this.fail(new TrainerError("exited", this.withStderr(`${this.name}: ${how} ${when}`)));
    } else if (state === "closing") {
      const closed = new TrainerError("exited", `${this.name}: closed`);
      this.machine.to({ name: "closed", error: closed });
      this.jobs.rejectAll(closed);
    }
  }

  /** Resolves once a valid hello arrives; fails the trainer when none comes within `timeoutMs`. */
  waitForHello(timeoutMs: number): Promise<HelloMessage> {
    return new Promise<HelloMessage>((resolve, reject) => {
      const failure = this.machine.failure;
      if (failure) return reject(failure);
      const timer = setTimeout(
        () =>
          this.fail(
            new TrainerError(
              "timeout",
              this.withStderr(`${this.name}: no hello within ${timeoutMs} ms; a trainer must print its hello line on stdout as soon as it starts`),
            ),
          ),
        timeoutMs,
      );
      this.#helloWait = {
        resolve: (h) => (clearTimeout(timer), resolve(h)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      };
    });
  }

  /** One stdout line: the hello while starting, then progress, results and errors of the jobs in flight. */
  onLine(line: string): void {
    if (this.machine.failure || !line.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      return this.protocolError(`printed a line that is not JSON (got ${JSON.stringify(line.slice(0, 120))})`);
    }
    const hello = this.machine.hello;
    if (!hello) return this.onHello(raw, line);
    const parsed = TrainerMessage.safeParse(raw);
    if (!parsed.success)
      return this.protocolError(`printed an invalid protocol message (${describeIssues(parsed.error)}; got ${JSON.stringify(line.slice(0, 160))})`);
    this.onMessage(parsed.data, hello);
  }

  private onHello(raw: unknown, line: string): void {
    const r = raw as { type?: unknown; protocol?: unknown };
    if (r?.type !== "hello") return this.protocolError(`first line must be a hello message (got ${JSON.stringify(line.slice(0, 120))})`);
    if (r.protocol !== TRAINER_PROTOCOL_VERSION)
      return this.fail(
        new TrainerError(
          "version",
          `${this.name} speaks trainer protocol ${JSON.stringify(r.protocol)}, hexa speaks protocol ${TRAINER_PROTOCOL_VERSION}; update the trainer, or set trainer.command to one that speaks protocol ${TRAINER_PROTOCOL_VERSION}`,
        ),
      );
    const h = HelloMessage.safeParse(raw);
    if (!h.success) return this.protocolError(`sent an invalid hello (${describeIssues(h.error)})`);
    this.machine.to({ name: "ready", hello: h.data });
    this.#helloWait?.resolve(h.data);
  }

  private onMessage(m: TrainerMessage, hello: HelloMessage): void {
    if (m.type === "hello") return this.protocolError("sent a second hello");
    if (m.type === "error" && m.id === null) {
      this.o.onLog?.(`${this.name}: error without a job id: ${m.kind}: ${m.message}`);
      return;
    }
    const p = this.jobs.get(m.id!);
    if (!p) {
      if (this.jobs.wasFinished(m.id!)) return; // a late answer to a job the host already stopped
      return this.protocolError(`answered job id ${JSON.stringify(m.id)}, which the host never sent`);
    }
    switch (m.type) {
      case "progress": {
        const { type: _t, id: _i, ...progress } = m;
        const max = p.opts.budget?.maxSteps;
        if (max !== undefined && m.steps > max)
          this.stopJob(p, {
            kind: "budget_exceeded",
            message: `budget exceeded: job ${p.id} reached ${m.steps} env steps, over its budget of ${max}; raise the step budget or lower steps`,
          });
        if (!p.stopped) p.opts.onProgress?.(progress);
        return;
      }
      case "result": {
        const { type: _t, id: _i, ...result } = m;
        const problem = p.stopped ? null : resultProblem(p.job, result, fitnessRangeOf(p.job.task, hello));
        if (problem)
          return this.fail(new TrainerError("protocol", this.withStderr(`${this.name}: result of job ${p.id}: ${problem}; the host records no such result`)));
        return this.jobs.finish(p, { kind: "result", result });
      }
      case "error": {
        const { type: _t, id: _i, ...error } = m;
        return this.jobs.finish(p, { kind: "error", error });
      }
      default: {
        const never: never = m;
        return this.protocolError(`sent an unexpected message ${JSON.stringify(never)}`);
      }
    }
  }

  /** Stops a job from the host's side: cancel, and kill the trainer if it does not answer in time. */
  stopJob(p: PendingJob, why: JobError): void {
    if (p.stopped) return;
    p.stopped = why;
    this.send({ type: "cancel", id: p.id });
    const graceMs = this.o.cancelGraceMs;
    p.timers.push(
      setTimeout(() => {
        if (!this.jobs.isPending(p.id)) return;
        this.o.onLog?.(`${this.name}: job ${p.id} did not answer cancel within ${graceMs} ms; killing the trainer`);
        this.jobs.finish(p, { kind: "error", error: why });
        this.fail(new TrainerError("timeout", `${this.name}: did not answer cancel of job ${p.id} within ${graceMs} ms and was killed`));
      }, graceMs),
    );
  }

  /** Sends a job once a slot is free; its deadline and its caller's abort signal stop it from the host's side. */
  async train(job: TrainJob, topts: TrainOptions, concurrency: number): Promise<JobOutcome> {
    await this.jobs.slot(concurrency, () => this.machine.failure !== null);
    const failure = this.machine.failure;
    if (failure) throw failure;
    const id = topts.id ?? `j${++this.#seq}`;
    if (this.jobs.isPending(id) || this.jobs.wasFinished(id)) throw new ConfigError(`job id ${id} was already used on ${this.name}; give each job its own id`);
    return new Promise<JobOutcome>((resolve, reject) => {
      const p: PendingJob = { id, job, resolve, reject, opts: topts, timers: [], cleanup: [], stopped: null };
      this.jobs.add(p);
      const budgetMs = topts.budget?.wallMs;
      const wallMs = budgetMs ?? deadlineMs(job.steps, this.o.deadline ?? DEFAULT_DEADLINE);
      const what =
        budgetMs === undefined
          ? `its default deadline of ${wallMs} ms (for ${job.steps} env steps; docs/trainer-protocol.md)`
          : `its wall-clock budget of ${wallMs} ms`;
      const onDeadline = () =>
        this.stopJob(p, {
          kind: "budget_exceeded",
          message: `budget exceeded: job ${id} ran past ${what} on ${this.name} and was cancelled; raise trainer.wallMs (hexa search: --wall-ms) or lower steps`,
        });
      p.timers.push(setTimeout(onDeadline, Math.min(wallMs, MAX_TIMER_MS)));
      const signal = topts.signal;
      if (signal) {
        const onAbort = () => this.stopJob(p, { kind: "cancelled", message: `job ${id} cancelled` });
        if (signal.aborted) onAbort();
        else {
          signal.addEventListener("abort", onAbort, { once: true });
          p.cleanup.push(() => signal.removeEventListener("abort", onAbort));
        }
      }
      this.send({ type: "train", id, ...job, ...(topts.budget ? { budget: topts.budget } : {}) });
    });
  }

  /** `ready` → `closing`: shutdown, then a kill after the grace period; a failed trainer is only waited for. */
  async close(): Promise<void> {
    const state = this.machine.state;
    if (state.name === "closing" || state.name === "closed") return void (await this.exited);
    if (state.name === "ready") this.machine.to({ name: "closing", hello: state.hello });
    if (this.sub.exitCode === null && state.name === "ready") {
      this.send({ type: "shutdown" });
      this.sub.stdin?.end();
      const timer = setTimeout(() => this.kill(), this.o.cancelGraceMs);
      await this.exited;
      clearTimeout(timer);
    } else {
      if (this.sub.exitCode === null) this.kill();
      await this.exited;
    }
  }
}
