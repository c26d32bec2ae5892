/**
 * The main thread's side of the physics worker (docs/spec/interphyre.md §5.2). In a process that loaded the LLM layer, or
 * parsed any `{"x": "1", "y": "2"}`, V8 generalises the field representation of the `{x, y}` shapes planck's
 * vectors share, and every rollout runs 2.3–3.5× slower. The physics therefore runs in worker threads, each
 * its own isolate; the host validates each call with the tool's zod schema here (an invalid call never
 * reaches the worker) and posts only the validated data.
 *
 * One host per process (`physicsHost()`), started on first use; a small pool of workers, each holding the
 * sessions opened on it; a worker is ref'd only while it has calls in flight, so it never keeps the process
 * alive; a worker that dies rejects its calls with PhysicsWorkerError and the next session starts a fresh one.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { z } from "zod";
import type { Trajectory } from "../../src/store/trajectory.ts";
import { ConfigError, HexaError, InvariantError, ModelOutputError } from "../../src/errors.ts";
import { RUNS_COMPILED, runnableModule } from "../../src/util/runnable-module.ts";
import { HeuristicHint } from "./heuristic/hints.ts";
import type { DispatchOutcome } from "./tools/interphyre-tool.ts";
import type { HeuristicRequest, HostMessage, SceneCheckRequest, SessionRequest, WorkerFailure, WorkerMessage } from "./physics-worker.ts";
import type { AnimationRequest } from "./pictures/rollout-animation.ts";

/** The physics worker died or could not start: the calls in flight and its sessions are lost. */
export class PhysicsWorkerError extends HexaError {}

// Compiled, the worker runs its dist/ module; from sources, an entry that registers tsx in the worker first.
const ENTRY = RUNS_COMPILED ? runnableModule(new URL("./physics-worker.ts", import.meta.url)) : new URL("./physics-worker-entry.mjs", import.meta.url);

const WORKERS_ENV = "HEXA_PHYSICS_WORKERS";

/**
 * Default pool size: one worker per core (the main thread mostly waits on them); HEXA_PHYSICS_WORKERS overrides
 * it. Results do not depend on it: each episode is deterministic wherever it runs, and the run loop writes the
 * run's files in a sequential run's order (docs/ARCHITECTURE.md §4), so only timings follow the pool.
 */
export const defaultPhysicsWorkers = (env: NodeJS.ProcessEnv = process.env): number => {
  const raw = env[WORKERS_ENV];
  if (raw === undefined || raw === "") return Math.max(1, availableParallelism());
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1 || n > 64)
    throw new ConfigError(`${WORKERS_ENV} must be an integer in [1, 64] (got ${JSON.stringify(raw)}); unset it for one worker per core`);
  return n;
};

export interface PhysicsHostOptions {
  /** Most worker threads; a session goes to the least loaded one, a whole job to the first free of jobs. */
  workers?: number;
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  what: string;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
  /** Open sessions plus whole jobs in flight: what a session's placement balances. */
  load: number;
  /** Whole jobs (heuristic episodes, scene checks) running on it: at most one, so none waits behind another. */
  jobs: number;
  /** Set once the worker died or was terminated: why, for every later call on its sessions. */
  dead?: string;
}

/** One tool session inside a worker. `call` takes arguments already validated by the tool's schema. */
export interface PhysicsSession {
  call(name: string, validArgs: unknown): Promise<DispatchOutcome>;
  close(): void;
}

const KNOWN_ERRORS: Record<string, new (m: string) => HexaError> = { ConfigError, ModelOutputError, InvariantError };

/** An error thrown inside the worker, as the same kind here (the worker's stack kept as the cause). */
const rehydrate = (f: WorkerFailure, what: string): Error => {
  const Kind = KNOWN_ERRORS[f.name];
  const e = Kind ? new Kind(f.message) : new InvariantError(`physics worker: ${what} threw ${f.name}: ${f.message}`);
  if (f.stack) e.cause = Object.assign(new Error(f.message), { name: f.name, stack: f.stack });
  return e;
};

const Hints = z.array(HeuristicHint);

export class PhysicsHost {
  private readonly slots: Slot[] = [];
  /** Whole jobs waiting for a worker that runs none, first come first served. */
  private readonly queued: { start: (slot: Slot) => void; refuse: (e: Error) => void; what: string }[] = [];
  private nextId = 1;
  readonly maxWorkers: number;

  constructor(opts: PhysicsHostOptions = {}) {
    this.maxWorkers = opts.workers ?? defaultPhysicsWorkers();
    if (!Number.isInteger(this.maxWorkers) || this.maxWorkers < 1) {
      throw new ConfigError(`physics workers must be an integer ≥ 1 (got ${opts.workers}); use 1 to serialise all physics in one worker`);
    }
  }

  /** Live workers now (tests and benches). */
  get workers(): number {
    return this.slots.length;
  }

  /** Opens a tool session for one episode; costs no round trip (an open failure is reported by the first call). */
  openSession(r: SessionRequest): PhysicsSession {
    const slot = this.place();
    const session = this.nextId++;
    slot.load++;
    this.post(slot, { op: "open", session, ...r });
    let open = true;
    const where = `${r.level} seed ${r.seed}`;
    return {
      call: (name, args) => {
        if (!open) return Promise.reject(new InvariantError(`physics session for ${where}: ${name} called after close`));
        if (slot.dead)
          return Promise.reject(
            new PhysicsWorkerError(`${slot.dead}; the session for ${where} was lost with it, so ${name} cannot run; replay the episode (hexa run --resume)`),
          );
        return this.request(slot, `${name} on ${where}`, (req) => ({ op: "call", req, session, name, args })) as Promise<DispatchOutcome>;
      },
      close: () => {
        if (!open) return;
        open = false;
        slot.load--;
        if (!slot.dead) this.post(slot, { op: "close", session });
        this.dispatch();
      },
    };
  }

  /** One whole heuristic episode inside a worker: the same trajectory as runHeuristicEpisode in-process, timing aside. */
  runHeuristic(r: HeuristicRequest): Promise<Trajectory> {
    const request: HeuristicRequest = { ...r, hints: Hints.parse(r.hints) };
    return this.job(`the heuristic episode on ${r.level} seed ${r.seed}`, (req) => ({ op: "heuristic", req, request })) as Promise<Trajectory>;
  }

  /** Replays stored scene solutions inside a worker (scene-check.ts's `reproduces`): whether each reaches its goal. */
  checkScenes(r: SceneCheckRequest): Promise<boolean[]> {
    return this.job(`the scene check of ${r.entries.length} ${r.level} scenes`, (req) => ({ op: "check-scenes", req, request: r })) as Promise<boolean[]>;
  }

  /** An episode's rollout animation (pictures/rollout-animation.ts) made inside a worker: the same GIF bytes as in-process. */
  animate(r: AnimationRequest): Promise<Uint8Array> {
    return this.job(`the animation of ${r.level} seed ${r.seed}`, (req) => ({ op: "animation", req, request: r })) as Promise<Uint8Array>;
  }

  /** Terminates every worker; calls in flight and jobs still queued reject. The host can be used again afterwards (fresh workers). */
  async close(): Promise<void> {
    for (const q of this.queued.splice(0)) q.refuse(new PhysicsWorkerError(`the physics host was closed; ${q.what} did not start`));
    const slots = this.slots.splice(0);
    await Promise.all(
      slots.map((s) => {
        s.dead ??= "the physics host was closed";
        return s.worker.terminate();
      }),
    );
  }

  /** Tests only: makes a worker that holds sessions die (an uncaught throw, or process.exit inside it). */
  crashForTest(how: "throw" | "exit" = "throw"): void {
    for (const s of this.slots) this.post(s, { op: "crash", how });
  }

  /**
   * A whole job runs on a worker that runs no other job, spawned while the pool is below its size; otherwise it
   * waits here and goes to the first worker that finishes one. Placed when sent, a job could queue behind a long
   * episode on one worker while the other stood idle.
   */
  private job(what: string, make: (req: number) => HostMessage): Promise<unknown> {
    return new Promise<Slot>((start, refuse) => {
      this.queued.push({ start, refuse, what });
      this.dispatch();
    }).then(async (slot) => {
      try {
        return await this.request(slot, what, make);
      } finally {
        slot.jobs--;
        slot.load--;
        this.dispatch();
      }
    });
  }

  /**
   * Starts queued jobs on workers free of jobs, as `place` places sessions: an idle worker, else a new one while
   * the pool is below its size, else the one with the fewest sessions.
   */
  private dispatch(): void {
    while (this.queued.length > 0) {
      const free = this.slots.filter((s) => s.jobs === 0 && !s.dead).sort((a, b) => a.load - b.load)[0];
      const slot = free?.load === 0 || this.slots.length >= this.maxWorkers ? free : this.spawn();
      if (!slot) return;
      slot.jobs++;
      slot.load++;
      this.queued.shift()!.start(slot);
    }
  }

  private place(): Slot {
    const idle = this.slots.reduce<Slot | undefined>((best, s) => (!best || s.load < best.load ? s : best), undefined);
    if (idle && (idle.load === 0 || this.slots.length >= this.maxWorkers)) return idle;
    return this.spawn();
  }

  private spawn(): Slot {
    // execArgv: []: the parent's `--import tsx` must not preload into the worker (the entry registers tsx itself).
    const worker = new Worker(ENTRY, { execArgv: [] });
    worker.unref();
    const slot: Slot = { worker, pending: new Map(), load: 0, jobs: 0 };
    let cause = "";
    const fail = (why: string) => {
      if (!slot.dead) slot.dead = why;
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      const pending = [...slot.pending.values()];
      slot.pending.clear();
      for (const p of pending) p.reject(new PhysicsWorkerError(`${slot.dead} during ${p.what}; that call did not finish`));
    };
    worker.on("message", (m: WorkerMessage) => {
      const p = slot.pending.get(m.req);
      if (!p) return;
      slot.pending.delete(m.req);
      if (slot.pending.size === 0) worker.unref();
      if (m.ok) p.resolve(m.value);
      else p.reject(rehydrate(m.error, p.what));
    });
    worker.on("error", (e) => {
      cause = `${e.name}: ${e.message}`;
      fail(`the physics worker died (${cause})`);
    });
    worker.on("messageerror", (e) => fail(`the physics worker sent a message that could not be read (${e.message})`));
    worker.on("exit", (code) => fail(cause ? `the physics worker died (${cause})` : `the physics worker exited (code ${code})`));
    this.slots.push(slot);
    return slot;
  }

  private post(slot: Slot, m: HostMessage): void {
    slot.worker.postMessage(m);
  }

  private request(slot: Slot, what: string, make: (req: number) => HostMessage): Promise<unknown> {
    if (slot.dead) return Promise.reject(new PhysicsWorkerError(`${slot.dead}; ${what} cannot run`));
    const req = this.nextId++;
    return new Promise((resolve, reject) => {
      if (slot.pending.size === 0) slot.worker.ref();
      slot.pending.set(req, { resolve, reject, what });
      this.post(slot, make(req));
    });
  }
}

let shared: PhysicsHost | undefined;

/** The process's physics host, created on first use. */
export const physicsHost = (): PhysicsHost => (shared ??= new PhysicsHost());

/** Terminates the shared host's workers (they never keep the process alive; this frees them sooner). */
export const closePhysicsHost = async (): Promise<void> => {
  await shared?.close();
};

/** runHeuristicEpisode inside the physics worker, with rng = createRng(rngSeed) built there. */
export const runHeuristicInWorker = (r: HeuristicRequest, host: PhysicsHost = physicsHost()): Promise<Trajectory> => host.runHeuristic(r);
