/**
 * The physics worker (docs/spec/interphyre.md §5.2): Interphyre's tool sessions and heuristic episodes in their own isolate,
 * so that no object shape the model layer parses (a model's `{"x": "1", "y": "2"}`) can generalise the field
 * representation of the `{x, y}` shapes planck's vectors use. It never parses text: it receives only data the
 * host already validated with the tool's zod schema (numbers where planck wants numbers), by structured clone.
 * Started by physics-host.ts: from sources through physics-worker-entry.mjs (which registers tsx in this thread).
 */
import { parentPort } from "node:worker_threads";
import { runParsedInterphyreTool, InterphyreSession } from "./tools/interphyre-tool.ts";
import { toolSet } from "./tools/index.ts";
import type { InterphyreTool } from "./tools/interphyre-tool.ts";
import { createRng } from "../../src/util/rng.ts";
import { runHeuristicEpisode, type HeuristicHint } from "./heuristic/agent.ts";
import { createInstance } from "./instance.ts";
import type { CreateEngine } from "./world/engine.ts";
import { DEFAULT_ENGINE, loadEngine, type EngineName } from "./world/engines.ts";
import { createPlanckEngine } from "./world/planck-engine.ts";
import { reproduces, type SceneEntry } from "./scene-check.ts";
import type { AnimationRequest } from "./pictures/rollout-animation.ts";

export interface SessionRequest {
  level: string;
  seed: number;
  horizon: number;
  toolSet: string;
  /** Default planck. */
  engine?: EngineName;
}

export interface HeuristicRequest {
  level: string;
  seed: number;
  maxTurns: number;
  horizon: number;
  /** Default planck. */
  engine?: EngineName;
  /** The episode's rng is createRng(rngSeed), built in the worker. */
  rngSeed: number;
  hints: readonly HeuristicHint[];
  /** Tool and wall times from a counter advancing by this much per reading (deterministic tests); default the wall clock. */
  clockStepMs?: number;
}

/** Stored solutions of one level's scene file to replay (scene-check.ts), a slice of the file. */
export interface SceneCheckRequest {
  level: string;
  entries: SceneEntry[];
  steps: number;
  /** Default planck. */
  engine?: EngineName;
}

export type HostMessage =
  | ({ op: "open"; session: number } & SessionRequest)
  | { op: "call"; req: number; session: number; name: string; args: unknown }
  | { op: "close"; session: number }
  | { op: "heuristic"; req: number; request: HeuristicRequest }
  | { op: "check-scenes"; req: number; request: SceneCheckRequest }
  | { op: "animation"; req: number; request: AnimationRequest }
  /** Tests only: die the way a bug or a native fault would. */
  | { op: "crash"; how: "throw" | "exit" };

export interface WorkerFailure {
  name: string;
  message: string;
  stack?: string;
}

export type WorkerMessage = { req: number; ok: true; value: unknown } | { req: number; ok: false; error: WorkerFailure };

const port = parentPort;
if (!port) throw new Error("physics-worker.ts runs in a worker thread; start it through physics-host.ts");

type Live = { tools: InterphyreTool[]; session: InterphyreSession } | { failed: WorkerFailure };
const sessions = new Map<number, Live | Promise<Live>>();

/**
 * Engines loaded in this worker. A wasm engine loads asynchronously, once (world/engines.ts): a session
 * opened before it is ready holds a promise, and its calls wait for it in the order they came.
 */
const engines = new Map<EngineName, CreateEngine>([["planck", createPlanckEngine]]);
const withEngine = <T>(name: EngineName, build: (e: CreateEngine) => T): T | Promise<T> => {
  const loaded = engines.get(name);
  if (loaded) return build(loaded);
  return loadEngine(name).then((e) => {
    engines.set(name, e);
    return build(e);
  });
};

const failure = (e: unknown): WorkerFailure =>
  e instanceof Error ? { name: e.name, message: e.message, ...(e.stack ? { stack: e.stack } : {}) } : { name: "Error", message: String(e) };

const reply = (req: number, run: () => unknown) => {
  let msg: WorkerMessage;
  try {
    msg = { req, ok: true, value: run() };
  } catch (e) {
    msg = { req, ok: false, error: failure(e) };
  }
  try {
    port.postMessage(msg);
  } catch (e) {
    // A result structured clone cannot copy (a hexa bug): an error for this call, not a dead worker.
    port.postMessage({ req, ok: false, error: failure(e) } satisfies WorkerMessage);
  }
};

const clock = (stepMs: number | undefined): (() => number) => {
  if (stepMs === undefined) return () => performance.now();
  let t = 0;
  return () => (t += stepMs);
};

port.on("message", (m: HostMessage) => {
  switch (m.op) {
    case "open": {
      // An open failure is reported by the session's first call: opening costs no round trip.
      const open = (engine: CreateEngine): Live => {
        try {
          return { tools: toolSet(m.toolSet), session: new InterphyreSession(createInstance(m.level, m.seed), m.horizon, engine) };
        } catch (e) {
          return { failed: failure(e) };
        }
      };
      const live = withEngine(m.engine ?? DEFAULT_ENGINE, open);
      sessions.set(m.session, live instanceof Promise ? live.catch((e: unknown) => ({ failed: failure(e) })) : live);
      return;
    }
    case "call": {
      const call = (live: Live | undefined) =>
        reply(m.req, () => {
          if (!live) throw new Error(`no open session ${m.session} in the physics worker`);
          if ("failed" in live) throw Object.assign(new Error(live.failed.message), { name: live.failed.name });
          // The host parsed the call with the tool's schema (task-env.ts validateCall): no second parse here.
          return runParsedInterphyreTool(live.tools, live.session, m.name, m.args);
        });
      const live = sessions.get(m.session);
      if (live instanceof Promise) void live.then(call);
      else call(live);
      return;
    }
    case "close":
      sessions.delete(m.session);
      return;
    case "heuristic": {
      const r = m.request;
      const run = (engine: CreateEngine) =>
        reply(m.req, () =>
          runHeuristicEpisode({
            instance: createInstance(r.level, r.seed),
            maxTurns: r.maxTurns,
            horizon: r.horizon,
            engine,
            rng: createRng(r.rngSeed),
            now: clock(r.clockStepMs),
            hints: r.hints,
          }),
        );
      const done = withEngine(r.engine ?? DEFAULT_ENGINE, run);
      if (done instanceof Promise) done.catch((e: unknown) => port.postMessage({ req: m.req, ok: false, error: failure(e) } satisfies WorkerMessage));
      return;
    }
    case "check-scenes": {
      const r = m.request;
      const run = (engine: CreateEngine) => reply(m.req, () => r.entries.map((entry) => reproduces(r.level, entry, r.steps, engine)));
      const done = withEngine(r.engine ?? DEFAULT_ENGINE, run);
      if (done instanceof Promise) done.catch((e: unknown) => port.postMessage({ req: m.req, ok: false, error: failure(e) } satisfies WorkerMessage));
      return;
    }
    case "animation": {
      // Imported on first use: the pictures (the rasteriser, the GIF encoder) are no part of an episode.
      void import("./pictures/rollout-animation.ts").then(
        ({ rolloutAnimation }) => reply(m.req, () => rolloutAnimation(m.request)),
        (e: unknown) => port.postMessage({ req: m.req, ok: false, error: failure(e) } satisfies WorkerMessage),
      );
      return;
    }
    case "crash":
      if (m.how === "exit") process.exit(3);
      // Thrown out of the message handler: uncaught, so the worker dies before it reads the next message.
      throw new Error("physics worker crash requested by a test");
  }
});
