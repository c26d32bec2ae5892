/**
 * The sandbox for LLM-written reward code (docs/spec/reward-search.md §4): each candidate gets its own QuickJS interpreter
 * (quickjs-emscripten, pure wasm: its own wasm instance, runtime and context), a CPU-time limit per call, a
 * memory limit, a seeded `Math.random`, no clock, and nothing from the host except the numbers of each batch.
 *
 * The code's contract (what the actor is told):
 *
 *   function reward(obs, action, nextObs, info) { return { total: number, components: { name: number, ... } } }
 *
 * obs / nextObs / info are plain objects with the layout's names (obs.theta, info.x_position); action is an
 * object for continuous actions (action.torque) and the chosen index (a number) for discrete ones. Or, batched:
 *
 *   function rewardBatch(batch) { return { total: ArrayLike<number>, components: { name: ArrayLike<number> } } }
 *
 * with `batch = { n, obs: { theta: Float64Array(n), ... }, nextObs: { ... }, info: { ... }, action }`: one
 * Float64Array per named field (columns, env i at index i); `action` is `{ torque: Float64Array(n), ... }` for
 * continuous actions and one Float64Array(n) of indices for discrete ones. `total` and each component must be an
 * array or typed array of n numbers. If the code defines both functions, rewardBatch is used.
 *
 * `total` is the reward (what the trainer optimises); components are reported only (statistics, hacking alarm)
 * and need not sum to total (Eureka-style). Component names are fixed by the first call that returns; a later
 * env or call with other names is a "shape" fault. NaN or ±Infinity in total or any component is a "nan" fault.
 *
 * One call of `evaluate` is one crossing into the sandbox: the batch is packed column by column into one
 * ArrayBuffer (header n, then each obs field, action column, nextObs field and info field as n float64s), a
 * driver inside the sandbox calls the code per env (or once, batched) and packs total and components into one
 * output ArrayBuffer, which the host copies out. In the per-env form the four argument objects are reused from
 * env to env within a call (refilled before each call of `reward`), so code must not keep them across envs.
 *
 * Limits and isolation:
 * - CPU: a call (or the top-level code, at 10x) is interrupted once both its wall time and the process's CPU
 *   time pass `cpuMsPerCall`; the interruption cannot be caught by the code. QuickJS polls the limit every
 *   ~10,000 jumps or calls; builtins whose work grows with their input (fill, indexOf, join, sort, repeat,
 *   JSON, Object.keys, …) are wrapped so that they add polls in proportion to their work. Not covered: spread
 *   and `new TypedArray(bigArray)`, each bounded by the memory cap, so a loop of them can overrun the limit.
 * - Memory: QuickJS's heap limit (`memoryBytes`) plus a cap on the instance's wasm memory (16 MiB base +
 *   `memoryBytes`), so the host never gives a candidate more than that.
 * - Globals: only the ECMAScript builtins; no require, import, process, fetch, timers or Date (Date.now() is 0,
 *   `new Date()` throws); Math.random is sfc32 seeded by `seed`; console.* are no-ops; WeakRef and
 *   FinalizationRegistry are removed; promise jobs never run. The code's own state persists across calls.
 */
import { DefaultIntrinsics, newQuickJSWASMModule, newVariant, RELEASE_SYNC, type QuickJSContext, type QuickJSHandle, type QuickJSRuntime } from "quickjs-emscripten";
import { cpuUsage } from "node:process";
import { z } from "zod";
import type { ActionSpace, RewardBatchInput, RewardOutput, RewardProgram, RewardTask } from "../task.ts";
import { InvariantError, ModelOutputError } from "../../../src/errors.ts";

/** The names a reward reads: the task's observation, action and info names, and the action space's kind. */
export interface RewardLayout {
  observation: readonly string[];
  actionNames: readonly string[];
  actionKind: "discrete" | "continuous";
  info: readonly string[];
}

/** The layout of a task's reward: its names, and the kind of its env's action space. */
export const rewardLayout = (task: Pick<RewardTask, "observation" | "actionNames" | "info">, action: ActionSpace): RewardLayout => ({
  observation: task.observation,
  actionNames: task.actionNames,
  actionKind: action.kind,
  info: task.info,
});

export const SandboxLimits = z.strictObject({
  cpuMsPerCall: z.number().positive().default(100).describe("CPU time one evaluate call (one batch) may take, ms; top-level code gets 10x"),
  memoryBytes: z.number().int().min(1 << 20).default(32 << 20).describe("memory the sandbox's heap may use, bytes"),
  seed: z.number().int().min(0).default(0).describe("seed of the sandbox's Math.random"),
});
export type SandboxLimits = z.infer<typeof SandboxLimits>;

export const RewardFaultKind = z.enum(["syntax", "missing", "exception", "timeout", "memory", "nan", "shape"]);
export type RewardFaultKind = z.infer<typeof RewardFaultKind>;

export const RewardFault = z.object({
  kind: RewardFaultKind,
  /** The raw message (the interpreter's error, or what was wrong with the returned value). */
  message: z.string(),
  /** 1-based line in the reward code, where known. */
  line: z.number().int().min(1).optional(),
});
export type RewardFault = z.infer<typeof RewardFault>;

/** Reward code failed (compile or run); `message` is written for the model: what, where, and what to change. */
export class RewardCodeError extends ModelOutputError {
  constructor(
    readonly fault: RewardFault,
    text: string,
  ) {
    super(text);
  }
}

export interface SandboxedReward extends RewardProgram {
  /** "perEnv" when the code's `reward` is called once per env, "batched" when `rewardBatch` is. */
  readonly form: "perEnv" | "batched";
  /** Component names, fixed by the first call that returned; null before it. */
  readonly componentNames: readonly string[] | null;
}

const cpuMicros = () => {
  const u = cpuUsage();
  return u.user + u.system;
};

const CODE_FILE = "reward.js";
const STACK_BYTES = 256 << 10;
/** The build's initial wasm memory (16 MiB: static data, C stack, first heap pages). */
const WASM_BASE_BYTES = 16 << 20;
const WASM_PAGE = 64 << 10;
const DESCRIBE_MS = 20;
const COMPILE_FACTOR = 10;
const MAX_SHOWN_FIELDS = 12;

export async function compileReward(code: string, layout: RewardLayout, limits?: Partial<SandboxLimits>): Promise<SandboxedReward> {
  const lim = SandboxLimits.parse(limits ?? {});
  checkLayout(layout);
  // Its own wasm memory, capped: QuickJS's heap limit counts allocations only approximately in this build, so
  // the cap on the whole wasm memory is what stops a large-array bomb (malloc fails, QuickJS throws out of memory).
  const pages = Math.ceil((WASM_BASE_BYTES + lim.memoryBytes) / WASM_PAGE);
  const wasmMemory = new WebAssembly.Memory({ initial: WASM_BASE_BYTES / WASM_PAGE, maximum: pages });
  const module = await newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmMemory }));
  const runtime = module.newRuntime();
  let program: QuickJsReward | null = null;
  try {
    runtime.setMemoryLimit(lim.memoryBytes);
    runtime.setMaxStackSize(STACK_BYTES);
    const context = runtime.newContext({ intrinsics: { ...DefaultIntrinsics, Date: false } });
    program = new QuickJsReward(runtime, context, layout, lim, cleanSource(code));
    program.init();
    return program;
  } catch (e) {
    if (program) program.dispose();
    else safely(() => runtime.dispose());
    throw e;
  }
}

/** Strip what models often wrap code in, keeping every line where it was: ``` fences, `export`, `export { reward };`. */
export function cleanSource(code: string): string {
  return code
    .split("\n")
    .map((l) =>
      /^\s*```/.test(l) || /^\s*export\s*\{[^}]*\}\s*;?\s*$/.test(l)
        ? ""
        : l.replace(/^(\s*)export\s+(default\s+)?(?=(async\s+)?function\b|const\b|let\b|var\b)/, "$1"),
    )
    .join("\n");
}

function checkLayout(layout: RewardLayout): void {
  for (const [group, names] of [["observation", layout.observation], ["info", layout.info], ["actionNames", layout.actionNames]] as const) {
    const local = new Set<string>();
    for (const n of names) {
      if (local.has(n)) throw new InvariantError(`RewardLayout.${group}: duplicate name ${JSON.stringify(n)}; names must be unique`);
      if (n === "__proto__" || n === "") throw new InvariantError(`RewardLayout.${group}: ${JSON.stringify(n)} cannot be a field name; rename it`);
      local.add(n);
    }
  }
  if (layout.actionKind === "continuous" && layout.actionNames.length === 0) {
    throw new InvariantError("RewardLayout.actionNames: a continuous action needs ≥ 1 name (got none)");
  }
}

/** Set a key as an own data property (a component may be called "__proto__"). */
const defineEntry = <T>(obj: Record<string, T>, key: string, value: T) =>
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });

const safely = (f: () => void) => {
  try {
    f();
  } catch {
    // disposal of a broken interpreter: the wasm instance is dropped with it
  }
};

type CallOutcome = { ok: true; handle: QuickJSHandle } | { ok: false; error: QuickJSHandle | null; hostError?: unknown };

class QuickJsReward implements SandboxedReward {
  form: "perEnv" | "batched" = "perEnv";
  componentNames: readonly string[] | null = null;
  /** The running call's limit (ms), wall start, and process CPU (µs) when the interrupt handler first ran in it. */
  private limitMs = Infinity;
  private wallStart = 0;
  private cpuStart = -1;
  private wallAtCpuStart = 0;
  private interrupted = false;
  private disposed = false;
  /** Set when the interpreter itself broke (wasm trap): every later call reports it. */
  private broken: RewardCodeError | null = null;
  /** Set after a memory, stack or host fault: see dispose(). */
  private dirty = false;
  private describeFn: QuickJSHandle | null = null;
  private runFn: QuickJSHandle | null = null;
  private namesFn: QuickJSHandle | null = null;
  private readonly lines: string[];
  private readonly actionCols: number;
  private readonly cols: number;

  constructor(
    private readonly runtime: QuickJSRuntime,
    private readonly context: QuickJSContext,
    private readonly layout: RewardLayout,
    private readonly limits: SandboxLimits,
    private readonly code: string,
  ) {
    this.lines = code.split("\n");
    this.actionCols = layout.actionKind === "continuous" ? layout.actionNames.length : 1;
    this.cols = 2 * layout.observation.length + this.actionCols + layout.info.length;
    runtime.setInterruptHandler(() => this.shouldInterrupt());
  }

  init(): void {
    const ctx = this.context;
    const prelude = this.evalTrusted(preludeSource(this.layout, this.limits.seed), "hexa-prelude.js");
    this.describeFn = ctx.getProp(prelude, "describe");
    const makeDriver = ctx.getProp(prelude, "makeDriver");
    prelude.dispose();
    try {
      const compileMs = this.limits.cpuMsPerCall * COMPILE_FACTOR;
      const user = this.guarded(compileMs, () => ctx.evalCode(this.code, CODE_FILE, { type: "global", strict: false }));
      if (!user.ok) throw this.faultOf(user, "compile");
      user.handle.dispose();
      const found = this.guarded(compileMs, () =>
        ctx.evalCode(
          `[typeof rewardBatch === "undefined" ? undefined : rewardBatch, typeof reward === "undefined" ? undefined : reward]`,
          "hexa-bind.js",
        ),
      );
      if (!found.ok) throw this.faultOf(found, "compile");
      const driver = this.guarded(compileMs, () => ctx.callFunction(makeDriver, ctx.undefined, found.handle));
      found.handle.dispose();
      if (!driver.ok) throw this.faultOf(driver, "compile");
      const kind = ctx.typeof(driver.handle);
      if (kind === "string") {
        const what = ctx.getString(driver.handle);
        driver.handle.dispose();
        throw this.error({ kind: "missing", message: what }, missingText(what, this.layout));
      }
      this.form = ctx.getProp(driver.handle, "form").consume((h) => ctx.getString(h)) === "batched" ? "batched" : "perEnv";
      this.runFn = ctx.getProp(driver.handle, "run");
      this.namesFn = ctx.getProp(driver.handle, "names");
      driver.handle.dispose();
    } finally {
      makeDriver.dispose();
    }
  }

  evaluate(b: RewardBatchInput): RewardOutput {
    if (this.disposed) throw new InvariantError("RewardProgram.evaluate: called after dispose(); compile the code again");
    if (this.broken) throw this.broken;
    const input = this.pack(b);
    const n = b.n;
    if (n === 0) {
      const components: Record<string, Float64Array> = {};
      for (const name of this.componentNames ?? []) defineEntry(components, name, new Float64Array(0));
      return { total: new Float64Array(0), components };
    }
    const ctx = this.context;
    const out = this.guarded(this.limits.cpuMsPerCall, () => {
      const buf = ctx.newArrayBuffer(input.buffer);
      try {
        return ctx.callFunction(this.runFn!, ctx.undefined, buf);
      } finally {
        buf.dispose();
      }
    });
    if (!out.ok) throw this.faultOf(out, "call", b);
    let data: Float64Array;
    try {
      data = this.readOutput(out.handle, n);
    } finally {
      if (out.handle.alive) safely(() => out.handle.dispose());
    }
    const total = data.subarray(0, n);
    const names = this.componentNames!;
    const components: Record<string, Float64Array> = {};
    names.forEach((name, k) => defineEntry(components, name, data.subarray((k + 1) * n, (k + 2) * n)));
    this.checkFinite(total, components, b);
    return { total, components };
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const h of [this.describeFn, this.runFn, this.namesFn]) if (h?.alive) safely(() => h.dispose());
    safely(() => this.context.dispose());
    // After running out of memory or stack QuickJS may leak objects, and freeing the runtime then aborts with an
    // assertion (printed on stderr). The wasm instance is this program's alone, so it is simply dropped instead.
    if (!this.dirty) safely(() => this.runtime.dispose());
  }

  // ---------------------------------------------------------------------------------------------------------

  /** The driver's answer: an ArrayBuffer of n × (1 + K) float64s, or a string describing a shape fault. */
  private readOutput(h: QuickJSHandle, n: number): Float64Array {
    const ctx = this.context;
    let bytes: Uint8Array;
    try {
      if (ctx.typeof(h) === "string") {
        let message = "(unreadable)";
        try {
          message = String((JSON.parse(ctx.getString(h)) as { message: unknown }).message);
        } catch {
          // keep the placeholder
        }
        throw this.error({ kind: "shape", message }, shapeText(message, this.form));
      }
      bytes = ctx.getArrayBuffer(h).consume((lt) => lt.value.slice());
      if (this.componentNames === null) this.componentNames = this.fetchNames();
    } catch (e) {
      if (e instanceof RewardCodeError) throw e;
      throw this.hostFault(e);
    }
    const data = new Float64Array(bytes.buffer, 0, bytes.byteLength >> 3);
    const want = n * (1 + this.componentNames.length);
    if (data.length !== want) {
      const message = `the sandbox returned ${data.length} values for ${n} envs × ${1 + this.componentNames.length} outputs`;
      throw this.error({ kind: "shape", message }, shapeText(`${message} (do not redefine the sandbox's builtins)`, this.form));
    }
    return data;
  }

  /** A failure on the host side of a call: allocation in the sandbox's heap (memory), or a broken interpreter. */
  private hostFault(e: unknown): RewardCodeError {
    const msg = e instanceof Error ? e.message : String(e);
    if (/memory|allocate/i.test(msg)) return this.error({ kind: "memory", message: msg }, memoryText(msg, undefined, this.limits, undefined));
    if (e instanceof RangeError && /call stack/i.test(msg)) {
      // Native recursion inside QuickJS (e.g. JSON.stringify of a deeply nested value) ran out of host stack.
      const err = this.error(
        { kind: "exception", message: `stack overflow (${msg})` },
        `reward code nested too deeply (stack overflow in a builtin such as JSON.stringify); remove the deep nesting or recursion`,
      );
      this.broken = err;
      return err;
    }
    const err = this.error({ kind: "exception", message: msg }, `reward sandbox failed while running the code (${msg}); simplify the code and do not redefine the sandbox's builtins`);
    this.broken = err;
    return err;
  }

  private fetchNames(): string[] {
    const r = this.context.callFunction(this.namesFn!, this.context.undefined);
    if (r.error) {
      r.error.dispose();
      throw new InvariantError("reward sandbox: could not read component names");
    }
    const names = JSON.parse(this.context.getString(r.value)) as string[];
    r.value.dispose();
    return names;
  }

  /** The batch as one column-major Float64Array: [n, obs fields, action columns, nextObs fields, info fields]. */
  private pack(b: RewardBatchInput): Float64Array {
    const { observation, info } = this.layout;
    const n = b.n;
    const O = observation.length;
    const A = this.actionCols;
    if (!Number.isInteger(n) || n < 0) throw new InvariantError(`RewardBatchInput.n must be an integer ≥ 0 (got ${n})`);
    if (b.obs.length !== n * O) throw new InvariantError(`RewardBatchInput.obs has ${b.obs.length} values; expected n × ${O} = ${n * O}`);
    if (b.nextObs.length !== n * O) throw new InvariantError(`RewardBatchInput.nextObs has ${b.nextObs.length} values; expected n × ${O} = ${n * O}`);
    if (b.action.length !== n * A) throw new InvariantError(`RewardBatchInput.action has ${b.action.length} values; expected n × ${A} = ${n * A}`);
    const a = new Float64Array(1 + n * this.cols);
    a[0] = n;
    let off = 1;
    for (let j = 0; j < O; j++, off += n) for (let i = 0; i < n; i++) a[off + i] = b.obs[i * O + j]!;
    for (let j = 0; j < A; j++, off += n) for (let i = 0; i < n; i++) a[off + i] = b.action[i * A + j]!;
    for (let j = 0; j < O; j++, off += n) for (let i = 0; i < n; i++) a[off + i] = b.nextObs[i * O + j]!;
    for (const name of info) {
      const col = b.info[name];
      if (!col || col.length !== n) {
        throw new InvariantError(`RewardBatchInput.info.${name}: expected ${n} values (got ${col ? col.length : "none"}); the env must report every info field of the layout`);
      }
      a.set(col, off);
      off += n;
    }
    return a;
  }

  /** Run `f` with a deadline; any host-side failure (e.g. the heap is full) becomes a failed outcome. */
  private guarded(ms: number, f: () => { error?: QuickJSHandle; value?: QuickJSHandle }): CallOutcome {
    this.interrupted = false;
    this.limitMs = ms;
    this.wallStart = performance.now();
    this.cpuStart = -1;
    try {
      const r = f();
      if (r.error) return { ok: false, error: r.error };
      return { ok: true, handle: r.value! };
    } catch (e) {
      return { ok: false, error: null, hostError: e };
    } finally {
      this.limitMs = Infinity;
    }
  }

  /**
   * The interrupt handler (QuickJS calls it every few thousand operations). A call is stopped once both its wall
   * time and the process's CPU time since it started exceed the limit: CPU time so that a machine busy with
   * other work does not time out honest code, wall time so that other threads' CPU does not count. The CPU clock
   * is first read at the handler's first run in a call, so calls shorter than one handler period pay nothing.
   */
  private shouldInterrupt(): boolean {
    if (this.limitMs === Infinity) return false;
    const wall = performance.now() - this.wallStart;
    if (this.cpuStart < 0) {
      this.cpuStart = cpuMicros();
      this.wallAtCpuStart = wall;
      return false;
    }
    if (wall <= this.limitMs) return false;
    if ((cpuMicros() - this.cpuStart) / 1000 + this.wallAtCpuStart <= this.limitMs) return false;
    this.interrupted = true;
    return true;
  }

  private evalTrusted(src: string, file: string): QuickJSHandle {
    const r = this.context.evalCode(src, file, { type: "global", strict: true });
    if (r.error) {
      const d = JSON.stringify(this.context.dump(r.error));
      r.error.dispose();
      throw new InvariantError(`reward sandbox: ${file} failed: ${d}`);
    }
    return r.value;
  }

  /** Name, message and stack of a thrown value, read inside the sandbox under a short deadline. */
  private describe(err: QuickJSHandle): { name: string; message: string; stack: string } {
    const wasInterrupted = this.interrupted;
    const r = this.guarded(DESCRIBE_MS, () => this.context.callFunction(this.describeFn!, this.context.undefined, err));
    this.interrupted = wasInterrupted;
    if (!r.ok) {
      if (r.error?.alive) r.error.dispose();
      return { name: "Error", message: "(the thrown value could not be read)", stack: "" };
    }
    try {
      return JSON.parse(this.context.getString(r.handle)) as { name: string; message: string; stack: string };
    } catch {
      return { name: "Error", message: "(the thrown value could not be read)", stack: "" };
    } finally {
      r.handle.dispose();
    }
  }

  private faultOf(o: CallOutcome & { ok: false }, phase: "compile" | "call", b?: RewardBatchInput): RewardCodeError {
    if (o.error === null) return this.hostFault(o.hostError);
    const d = this.describe(o.error);
    o.error.dispose();
    const line = lineOf(d.stack);
    const src = line !== undefined ? this.lines[line - 1]?.trim() : undefined;
    const raw = `${d.name}: ${d.message}`;
    const where = phase === "call" && b ? `${b.n} env${b.n === 1 ? "" : "s"}` : "top-level code";
    if (this.interrupted) {
      // QuickJS's line for an interrupt is where the loop began, not where it ran: report the function instead.
      const fn = /at ([\w$.]+) \(reward\.js:/.exec(d.stack)?.[1];
      return this.error({ kind: "timeout", message: raw }, timeoutText(phase, where, fn, this.limits));
    }
    if (d.name === "InternalError" && /out of memory|too long|allocation|array too large/i.test(d.message)) {
      return this.error({ kind: "memory", message: raw, ...(line ? { line } : {}) }, memoryText(raw, line, this.limits, src));
    }
    if (d.name === "SyntaxError" && phase === "compile") {
      return this.error({ kind: "syntax", message: raw, ...(line ? { line } : {}) }, syntaxText(raw, line, src));
    }
    return this.error({ kind: "exception", message: raw, ...(line ? { line } : {}) }, exceptionText(raw, line, src, phase, this.layout, d.stack));
  }

  private error(fault: RewardFault, text: string): RewardCodeError {
    if (fault.kind === "memory" || /stack overflow|sandbox failed/.test(`${fault.message} ${text}`)) this.dirty = true;
    return new RewardCodeError(fault, text);
  }

  private checkFinite(total: Float64Array, components: Record<string, Float64Array>, b: RewardBatchInput): void {
    const bad = (arr: Float64Array) => {
      for (let i = 0; i < arr.length; i++) if (!Number.isFinite(arr[i]!)) return i;
      return -1;
    };
    // Components first: a NaN total usually comes from a NaN component, which is the more useful thing to name.
    const series: [string, Float64Array][] = [...Object.entries(components).map(([name, arr]): [string, Float64Array] => [`component "${name}"`, arr]), ["total", total]];
    for (const [what, arr] of series) {
      const i = bad(arr);
      if (i < 0) continue;
      const value = String(arr[i]);
      const message = `${what} is ${value} for env ${i}`;
      throw this.error(
        { kind: "nan", message },
        `reward ${what} is ${value} for env ${i} of ${b.n} (inputs: ${this.inputsOf(b, i)}); ` +
          `guard divisions, Math.log, Math.sqrt, Math.pow and Math.acos against zero, negative or out-of-range arguments so every value is a finite number`,
      );
    }
  }

  private inputsOf(b: RewardBatchInput, i: number): string {
    const { observation, actionNames, actionKind, info } = this.layout;
    const O = observation.length;
    const fmt = (x: number) => (Number.isFinite(x) ? Number(x.toPrecision(4)).toString() : String(x));
    const parts: string[] = [];
    observation.forEach((name, j) => parts.push(`obs.${name}=${fmt(b.obs[i * O + j]!)}`));
    if (actionKind === "discrete") parts.push(`action=${b.action[i]}`);
    else actionNames.forEach((name, j) => parts.push(`action.${name}=${fmt(b.action[i * actionNames.length + j]!)}`));
    observation.forEach((name, j) => parts.push(`nextObs.${name}=${fmt(b.nextObs[i * O + j]!)}`));
    info.forEach((name) => parts.push(`info.${name}=${fmt(b.info[name]![i]!)}`));
    return parts.length > MAX_SHOWN_FIELDS ? `${parts.slice(0, MAX_SHOWN_FIELDS).join(", ")}, …` : parts.join(", ");
  }
}

/** Line of the first `reward.js:<line>` frame of a QuickJS stack (`    at f (reward.js:3:7)`). */
function lineOf(stack: string): number | undefined {
  const m = /reward\.js:(\d+)/.exec(stack);
  return m ? Number(m[1]) : undefined;
}

const at = (line: number | undefined, src: string | undefined) =>
  line === undefined ? "" : ` at line ${line}${src ? ` (\`${src.length > 120 ? `${src.slice(0, 117)}...` : src}\`)` : ""}`;

const fieldsHint = (l: RewardLayout) =>
  `obs and nextObs have ${l.observation.map((n) => `.${n}`).join(", ") || "no fields"}; ` +
  (l.actionKind === "discrete" ? `action is the chosen index (0..${Math.max(0, l.actionNames.length - 1)}: ${l.actionNames.join(", ")})` : `action has ${l.actionNames.map((n) => `.${n}`).join(", ")}`) +
  `; info has ${l.info.map((n) => `.${n}`).join(", ") || "no fields"}`;

function syntaxText(raw: string, line: number | undefined, src: string | undefined): string {
  return `reward code does not parse: ${raw}${at(line, src)}; fix the syntax there. The code must be plain JavaScript (no TypeScript types, no import/require) defining function reward(obs, action, nextObs, info)`;
}

function missingText(what: string, l: RewardLayout): string {
  return `reward code: ${what}; define at top level function reward(obs, action, nextObs, info) returning { total: <number>, components: { <name>: <number>, ... } } (${fieldsHint(l)}), or function rewardBatch(batch)`;
}

function exceptionText(raw: string, line: number | undefined, src: string | undefined, phase: "compile" | "call", l: RewardLayout, stack: string): string {
  const sandboxOnly = /\b(require|process|fetch|import|module|exports|window|document|performance|setTimeout|Buffer)\b/.test(raw) || /could not load module|dynamic import/i.test(raw);
  const hint = sandboxOnly
    ? "the sandbox has no modules, files, network, process, timers or clock: use only plain JavaScript and Math"
    : /stack overflow/.test(raw)
      ? "remove the unbounded recursion"
      : /not defined|undefined|null|not a function/.test(raw)
        ? `read only the fields that exist: ${fieldsHint(l)}`
        : "fix the code there so that it cannot throw";
  const when = phase === "compile" ? "while running its top-level code" : "while computing the reward";
  const frames = stack
    .split("\n")
    .filter((s) => s.includes("reward.js:"))
    .map((s) => s.trim())
    .filter((s, i, all) => all.indexOf(s) === i)
    .slice(0, 3);
  const trace = frames.length > 1 ? ` [${frames.join("; ")}]` : "";
  return `reward code threw ${when}: ${raw}${at(line, src)}${trace}; ${hint}`;
}

function timeoutText(phase: "compile" | "call", where: string, fn: string | undefined, lim: SandboxLimits): string {
  const ms = phase === "compile" ? lim.cpuMsPerCall * COMPILE_FACTOR : lim.cpuMsPerCall;
  const stopped = fn === undefined || fn === "<eval>" ? "" : ` (stopped inside function ${fn})`;
  return `reward code ran longer than ${ms} ms of CPU time on ${where}${stopped}; remove endless or long loops: a reward should do a few arithmetic operations per transition`;
}

function memoryText(raw: string, line: number | undefined, lim: SandboxLimits, src: string | undefined): string {
  return `reward code exceeded the sandbox memory limit of ${Math.round(lim.memoryBytes / (1 << 20))} MiB (${raw})${at(line, src)}; do not build large arrays or strings, and keep no state that grows from call to call`;
}

function shapeText(message: string, form: "perEnv" | "batched"): string {
  const want =
    form === "batched"
      ? "rewardBatch must return { total: <array of n numbers>, components: { <name>: <array of n numbers>, ... } }"
      : "reward must return { total: <number>, components: { <name>: <number>, ... } }";
  return `reward code returned the wrong shape: ${message}; ${want}, with the same component names on every call`;
}

// -------------------------------------------------------------------------------------------------------------
// Code evaluated inside the sandbox before the reward code. It captures the intrinsics it needs (so the reward
// code cannot change what the driver does), replaces Math.random with a seeded generator, removes the clock and
// GC-dependent objects, adds a no-op console, and builds the driver once the reward code has been evaluated.

function preludeSource(l: RewardLayout, seed: number): string {
  const q = (s: string) => JSON.stringify(s);
  const O = l.observation.length;
  const A = l.actionKind === "continuous" ? l.actionNames.length : 1;
  const columns = 2 * O + A + l.info.length;
  // Per-env form: one object per argument, refilled for each env of a call (column c starts at 1 + c * n).
  const colBases = `const ${Array.from({ length: columns }, (_, c) => `c${c} = 1 + ${c} * n`).join(", ")};`;
  const objInit = (names: readonly string[]) => `{ ${names.map((name) => `${q(name)}: 0`).join(", ")} }`;
  // `o.theta =` compiles to QuickJS's fast field store; `o["theta"] =` is ~3x slower.
  const prop = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `[${q(name)}]`);
  const fillObj = (obj: string, names: readonly string[], col0: number) => names.map((name, j) => `${obj}${prop(name)} = a[c${col0 + j} + i];`).join(" ");
  const continuous = l.actionKind === "continuous";
  const actInit = continuous ? `const ac = ${objInit(l.actionNames)};` : "";
  const actArg = continuous ? "ac" : `a[c${O} + i]`;
  const fill = [fillObj("o", l.observation, 0), continuous ? fillObj("ac", l.actionNames, O) : "", fillObj("no", l.observation, O + A), fillObj("inf", l.info, 2 * O + A)].join(" ");
  const head = `${colBases}\n      const o = ${objInit(l.observation)}, no = ${objInit(l.observation)}, inf = ${objInit(l.info)};\n      ${actInit}`;
  const fastA = `"use strict";
    return function runFast(buf, r0) {
      const a = new F64(buf), n = a[0] | 0;
      ${head}
      const out = new F64(n * `;
  const fastB = `);
      for (let i = 0; i < n; i++) {
        let r;
        if (i === 0 && r0 !== undefined) r = r0;
        else {
          ${fill}
          r = envFn(o, ${actArg}, no, inf);
        }
        const t = r === null || typeof r !== "object" ? undefined : r.total;
        if (typeof t !== "number") return bad(r, -1, i);
        const c = r.components;
        if (c === null || typeof c !== "object") return bad(r, -1, i);
        if (i === 0) { const m = sameNames(c, "for env 0"); if (m !== null) return fault(m); }
        out[i] = t;
        let v;`;
  const fastC = `
      }
      return bufOf(out);
    };`;
  const cols = (names: readonly string[], col0: number) => `{ ${names.map((name, j) => `${q(name)}: new F64(buf, 8 * (1 + ${col0 + j} * n), n)`).join(", ")} }`;
  const actCols = l.actionKind === "continuous" ? cols(l.actionNames, O) : `new F64(buf, 8 * (1 + ${O} * n), n)`;
  return `(function () {
  "use strict";
  const G = globalThis, F64 = Float64Array, stringify = JSON.stringify, keysOf = Object.keys, isArray = Array.isArray;
  const hasOwn = Function.prototype.call.bind(Object.prototype.hasOwnProperty), Str = String, P = Promise, Fn = Function;
  const describeValue = (v) => { try { return v === null ? "null" : v instanceof P ? "a Promise (async functions and import() cannot be used)" : typeof v === "string" ? stringify(v.length > 40 ? v.slice(0, 40) + "..." : v) : typeof v === "object" ? (isArray(v) ? "an array" : "an object") : typeof v === "function" ? "a function" : Str(v); } catch (e) { return typeof v; } };

  // Math.random: sfc32 seeded through splitmix32, deterministic for the seed.
  let sm = ${seed % 2 ** 32} | 0;
  const split = () => { sm = (sm + 0x9e3779b9) | 0; let z = sm; z = Math.imul(z ^ (z >>> 16), 0x85ebca6b); z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35); return (z ^ (z >>> 16)) >>> 0; };
  sm = (split() ^ ${Math.floor(seed / 2 ** 32)}) | 0;
  let ra = split(), rb = split(), rc = split(), rd = split();
  const random = function random() {
    const t = (((ra + rb) | 0) + rd) | 0; rd = (rd + 1) | 0; ra = rb ^ (rb >>> 9); rb = (rc + (rc << 3)) | 0; rc = (rc << 21) | (rc >>> 11); rc = (rc + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let k = 0; k < 8; k++) random();
  Object.defineProperty(Math, "random", { value: random, writable: true, configurable: true, enumerable: false });

  // No clock: Date.now() is 0; new Date() explains itself. No GC-dependent objects.
  const NoDate = function Date() { throw new TypeError("Date is not available in the reward sandbox: a reward may depend only on obs, action, nextObs and info"); };
  NoDate.now = () => 0;
  Object.defineProperty(G, "Date", { value: NoDate, writable: true, configurable: true, enumerable: false });
  delete G.WeakRef; delete G.FinalizationRegistry;
  const noop = function () {};
  Object.defineProperty(G, "console", { value: { log: noop, info: noop, warn: noop, error: noop, debug: noop }, writable: true, configurable: true, enumerable: false });

  // QuickJS asks the interrupt handler (the CPU limit) only every ~10,000 jumps and calls, and a builtin such as
  // fill or indexOf on a million elements runs natively in between; so the builtins whose work grows with their
  // input first spin an empty loop of one jump per 64 elements, which keeps the checks proportional to the work.
  const apply = Reflect.apply, defineProp = Object.defineProperty, min = Math.min;
  const spin = (n) => { for (let k = min(n, 1e9) / 64; k >= 1; k--) {} };
  const len = (x) => { try { return x != null && typeof x.length === "number" ? x.length : 0; } catch (e) { return 0; } };
  const wrapBefore = (obj, name, size) => {
    const f = obj[name];
    if (typeof f !== "function") return;
    const w = { [name](...args) { spin(size(this, args)); return apply(f, this, args); } }[name];
    defineProp(obj, name, { value: w, writable: true, configurable: true, enumerable: false });
  };
  const wrapAfter = (obj, name) => {
    const f = obj[name];
    if (typeof f !== "function") return;
    const w = { [name](...args) { const r = apply(f, this, args); spin(len(r)); return r; } }[name];
    defineProp(obj, name, { value: w, writable: true, configurable: true, enumerable: false });
  };
  const ofThis = (t) => len(t);
  const ofThisAndArgs = (t, a) => { let n = len(t); for (let i = 0; i < a.length; i++) n += len(a[i]); return n; };
  const ofArg0 = (t, a) => len(a[0]);
  const TypedProto = Object.getPrototypeOf(Int8Array.prototype), Typed = Object.getPrototypeOf(Int8Array);
  const bufOf = Function.prototype.call.bind(Object.getOwnPropertyDescriptor(TypedProto, "buffer").get);
  for (const m of ["fill", "join", "toString", "toLocaleString", "slice", "splice", "indexOf", "lastIndexOf", "includes", "reverse", "copyWithin", "flat", "toReversed", "toSpliced", "with", "shift", "unshift"]) wrapBefore(Array.prototype, m, ofThis);
  wrapBefore(Array.prototype, "concat", ofThisAndArgs);
  for (const m of ["sort", "toSorted"]) wrapBefore(Array.prototype, m, (t) => 20 * len(t));
  for (const m of ["fill", "join", "toString", "toLocaleString", "slice", "indexOf", "lastIndexOf", "includes", "reverse", "copyWithin", "toReversed", "with"]) wrapBefore(TypedProto, m, ofThis);
  for (const m of ["sort", "toSorted"]) wrapBefore(TypedProto, m, (t) => 20 * len(t));
  wrapBefore(TypedProto, "set", ofArg0);
  wrapBefore(Array, "from", ofArg0);
  wrapBefore(Typed, "from", ofArg0);
  wrapBefore(String.prototype, "repeat", (t, a) => Str(t).length * min(+a[0] || 0, 1e9));
  for (const m of ["padStart", "padEnd"]) wrapBefore(String.prototype, m, (t, a) => +a[0] || 0);
  for (const m of ["indexOf", "lastIndexOf", "includes", "split", "replace", "replaceAll", "match", "matchAll", "search", "toUpperCase", "toLowerCase", "normalize", "trim", "trimStart", "trimEnd", "slice", "substring", "substr", "startsWith", "endsWith", "localeCompare"]) wrapBefore(String.prototype, m, (t) => len(t));
  wrapBefore(String.prototype, "concat", ofThisAndArgs);
  wrapBefore(JSON, "parse", ofArg0);
  wrapAfter(JSON, "stringify");
  for (const m of ["keys", "values", "entries", "getOwnPropertyNames"]) wrapAfter(Object, m);
  wrapBefore(Function.prototype, "apply", (t, a) => len(a[1]));

  function describe(e) {
    let name = "Error", message = "", stack = "";
    try {
      if (e !== null && (typeof e === "object" || typeof e === "function")) {
        try { name = Str(e.name); } catch (x) {}
        try { message = Str(e.message); } catch (x) { message = "(unreadable message)"; }
        try { stack = typeof e.stack === "string" ? e.stack.slice(0, 2000) : ""; } catch (x) {}
        if (typeof e.lineNumber === "number" && stack.indexOf("reward.js:") < 0 && e.fileName === "reward.js") stack = "    at reward.js:" + e.lineNumber + "\\n" + stack;
      } else { name = "thrown value"; message = describeValue(e); }
    } catch (x) {}
    return stringify({ name: name.slice(0, 100), message: message.slice(0, 500), stack });
  }

  function makeDriver(found) {
    const batchFn = found[0], envFn = found[1];
    if (batchFn !== undefined && typeof batchFn !== "function") return "rewardBatch is " + describeValue(batchFn) + ", not a function";
    if (batchFn === undefined && envFn === undefined) return "neither function reward nor function rewardBatch is defined";
    if (batchFn === undefined && typeof envFn !== "function") return "reward is " + describeValue(envFn) + ", not a function";
    let names = null, K = 0;
    const fault = (m) => stringify({ kind: "shape", message: m });
    const setNames = (c) => { names = keysOf(c); K = names.length; };
    const sameNames = (c, where) => {
      const ks = keysOf(c);
      if (ks.length === K) { let ok = true; for (let k = 0; k < K; k++) if (!hasOwn(c, names[k])) { ok = false; break; } if (ok) return null; }
      return "components " + where + " are [" + ks.join(", ") + "] but the first call returned [" + names.join(", ") + "]";
    };
    /** The shape fault of env i's result r (k: index of the component that was not a number, or -1). */
    const bad = (r, k, i) => {
      if (r === null || typeof r !== "object" || isArray(r) || r instanceof P) return fault("got " + describeValue(r) + " for env " + i);
      const t = r.total;
      if (typeof t !== "number") return fault("total is " + describeValue(t) + " for env " + i + ", not a number");
      const c = r.components;
      if (c === null || typeof c !== "object" || isArray(c)) return fault("components is " + describeValue(c) + " for env " + i + ", not an object of named numbers");
      if (k < 0) return fault("the result for env " + i + " could not be read");
      const v = c[names[k]];
      return fault(v === undefined && !(names[k] in c) ? sameNames(c, "for env " + i) : "component " + stringify(names[k]) + " is " + describeValue(v) + " for env " + i + ", not a number");
    };
    // The first call runs env 0 here to learn the component names, then hands over to a runner generated for
    // those names (property reads and writes with constant keys, no inner loop), used for every later env.
    let fast = null;
    const makeFast = () => {
      let extract = "";
      for (let k = 0; k < K; k++) extract += " v = c[" + stringify(names[k]) + "]; if (typeof v !== 'number') return bad(r, " + k + ", i); out[" + (k + 1) + " * n + i] = v;";
      return Fn("envFn", "F64", "fault", "bad", "sameNames", "bufOf", ${JSON.stringify(fastA)} + (1 + K) + ${JSON.stringify(fastB)} + extract + ${JSON.stringify(fastC)})(envFn, F64, fault, bad, sameNames, bufOf);
    };
    function runFirst(buf) {
      const a = new F64(buf), n = a[0] | 0;
      ${head}
      const i = 0;
      ${fill}
      const r = envFn(o, ${actArg}, no, inf);
      const c = r === null || typeof r !== "object" || typeof r.total !== "number" ? null : r.components;
      if (c === null || typeof c !== "object" || isArray(c)) return bad(r, -1, 0);
      setNames(c);
      fast = makeFast();
      return fast(buf, r);
    }
    const runPerEnv = (buf) => (fast !== null ? fast(buf, undefined) : runFirst(buf));
    function runBatched(buf) {
      const n = new F64(buf, 0, 1)[0] | 0;
      const batch = { n, obs: ${cols(l.observation, 0)}, action: ${actCols}, nextObs: ${cols(l.observation, O + A)}, info: ${cols(l.info, 2 * O + A)} };
      const r = batchFn(batch);
      if (r === null || typeof r !== "object" || isArray(r) || r instanceof P) return fault("got " + describeValue(r));
      const t = r.total, c = r.components;
      const badArr = (x) => x === null || typeof x !== "object" || typeof x.length !== "number" ? describeValue(x) + ", not an array" : x.length !== n ? "an array of length " + x.length + ", not n = " + n : null;
      let m = badArr(t);
      if (m !== null) return fault("total is " + m);
      if (c === null || typeof c !== "object" || isArray(c)) return fault("components is " + describeValue(c) + ", not an object of named arrays");
      if (names === null) setNames(c);
      else { m = sameNames(c, "in this call"); if (m !== null) return fault(m); }
      const out = new F64(n * (1 + K));
      for (let i = 0; i < n; i++) { const v = t[i]; if (typeof v !== "number") return fault("total[" + i + "] is " + describeValue(v) + ", not a number"); out[i] = v; }
      for (let k = 0; k < K; k++) {
        const x = c[names[k]];
        m = badArr(x);
        if (m !== null) return fault("component " + stringify(names[k]) + " is " + m);
        for (let i = 0; i < n; i++) { const v = x[i]; if (typeof v !== "number") return fault("component " + stringify(names[k]) + "[" + i + "] is " + describeValue(v) + ", not a number"); out[(k + 1) * n + i] = v; }
      }
      return bufOf(out);
    }
    return { form: batchFn !== undefined ? "batched" : "perEnv", run: batchFn !== undefined ? runBatched : runPerEnv, names: () => stringify(names) };
  }
  return { describe, makeDriver };
})()`;
}
