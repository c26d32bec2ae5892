/**
 * One compiled reward program (reward-sandbox.ts gives the contract and the limits): its QuickJS context with
 * prelude.js evaluated in it, the driver built for the code, and the CPU-limit interrupt handler. A fault is
 * classified and worded in faults.ts; here is what the interpreter did and which state it left behind.
 */
import { readFileSync } from "node:fs";
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from "quickjs-emscripten";
import type { RewardBatchInput, RewardOutput } from "../task.ts";
import { InvariantError } from "../../../src/errors.ts";
import { hostFault, missingText, nonFiniteFault, RewardCodeError, shapeText, thrownFault, type RewardFault, type Thrown } from "./faults.ts";
import { CallCpuLimit } from "./call-cpu-limit.ts";
import { packBatch, type RewardLayout, type SandboxedReward, type SandboxLimits } from "./contract.ts";

/** The code run in the sandbox before the reward code (read once per process). */
const PRELUDE = readFileSync(new URL("./prelude.js", import.meta.url), "utf8");

const CODE_FILE = "reward.js";
const DESCRIBE_MS = 20;
/** Top-level code gets this many times the per-call CPU limit. */
const COMPILE_FACTOR = 10;

/** Set a key as an own data property (a component may be called "__proto__"). */
const defineEntry = <T>(obj: Record<string, T>, key: string, value: T) =>
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });

export const safely = (f: () => void) => {
  try {
    f();
  } catch {
    // disposal of a broken interpreter: the wasm instance is dropped with it
  }
};

type CallOutcome = { ok: true; handle: QuickJSHandle } | { ok: false; error: QuickJSHandle | null; hostError?: unknown };

export class QuickJsReward implements SandboxedReward {
  form: "perEnv" | "batched" = "perEnv";
  componentNames: readonly string[] | null = null;
  private readonly cpuLimit = new CallCpuLimit();
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

  constructor(
    private readonly runtime: QuickJSRuntime,
    private readonly context: QuickJSContext,
    private readonly layout: RewardLayout,
    private readonly limits: SandboxLimits,
    private readonly code: string,
  ) {
    this.lines = code.split("\n");
    runtime.setInterruptHandler(() => this.shouldInterrupt());
  }

  init(): void {
    const ctx = this.context;
    const prelude = this.runPrelude();
    this.describeFn = ctx.getProp(prelude, "describe");
    const makeDriver = ctx.getProp(prelude, "makeDriver");
    prelude.dispose();
    try {
      const compileMs = this.limits.cpuMsPerCall * COMPILE_FACTOR;
      const user = this.guarded(compileMs, () => ctx.evalCode(this.code, CODE_FILE, { type: "global", strict: false }));
      if (!user.ok) throw this.faultOf(user, "compile");
      user.handle.dispose();
      const found = this.guarded(compileMs, () =>
        ctx.evalCode(`[typeof rewardBatch === "undefined" ? undefined : rewardBatch, typeof reward === "undefined" ? undefined : reward]`, "hexa-bind.js"),
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
    const input = packBatch(this.layout, b);
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
    const nonFinite = nonFiniteFault(total, components, b, this.layout);
    if (nonFinite) throw this.error(nonFinite.fault, nonFinite.text);
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

  /** A failure on the host side of a call (faults.ts hostFault); a broken interpreter reports it on every later call. */
  private hostFault(e: unknown): RewardCodeError {
    const f = hostFault(e, this.limits.memoryBytes);
    const err = this.error(f.fault, f.text);
    if (f.breaks) this.broken = err;
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

  /** Run `f` with a deadline; any host-side failure (e.g. the heap is full) becomes a failed outcome. */
  private guarded(ms: number, f: () => { error?: QuickJSHandle; value?: QuickJSHandle }): CallOutcome {
    this.interrupted = false;
    this.cpuLimit.start(ms);
    try {
      const r = f();
      if (r.error) return { ok: false, error: r.error };
      return { ok: true, handle: r.value! };
    } catch (e) {
      return { ok: false, error: null, hostError: e };
    } finally {
      this.cpuLimit.stop();
    }
  }

  /** The interrupt handler: stop the call once it is over its CPU limit (call-cpu-limit.ts). */
  private shouldInterrupt(): boolean {
    if (!this.cpuLimit.exceeded()) return false;
    this.interrupted = true;
    return true;
  }

  /** Evaluate prelude.js (trusted, no deadline) and call it with the layout and seed: `{ describe, makeDriver }`. */
  private runPrelude(): QuickJSHandle {
    const ctx = this.context;
    const fail = (what: QuickJSHandle) => {
      const d = JSON.stringify(ctx.dump(what));
      what.dispose();
      return new InvariantError(`reward sandbox: hexa-prelude.js failed: ${d}`);
    };
    const made = ctx.evalCode(PRELUDE, "hexa-prelude.js", { type: "global", strict: true });
    if (made.error) throw fail(made.error);
    const { observation, actionNames, actionKind, info } = this.layout;
    const args = [ctx.newString(JSON.stringify({ observation, actionNames, actionKind, info })), ctx.newNumber(this.limits.seed)];
    const r = ctx.callFunction(made.value, ctx.undefined, ...args);
    for (const h of [made.value, ...args]) h.dispose();
    if (r.error) throw fail(r.error);
    return r.value;
  }

  /** Name, message and stack of a thrown value, read inside the sandbox under a short deadline. */
  private describe(err: QuickJSHandle): Thrown {
    const wasInterrupted = this.interrupted;
    const r = this.guarded(DESCRIBE_MS, () => this.context.callFunction(this.describeFn!, this.context.undefined, err));
    this.interrupted = wasInterrupted;
    if (!r.ok) {
      if (r.error?.alive) r.error.dispose();
      return { name: "Error", message: "(the thrown value could not be read)", stack: "" };
    }
    try {
      return JSON.parse(this.context.getString(r.handle)) as Thrown;
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
    const limitMs = phase === "compile" ? this.limits.cpuMsPerCall * COMPILE_FACTOR : this.limits.cpuMsPerCall;
    const f = thrownFault(d, {
      phase,
      ...(phase === "call" && b ? { n: b.n } : {}),
      interrupted: this.interrupted,
      limitMs,
      memoryBytes: this.limits.memoryBytes,
      lines: this.lines,
      layout: this.layout,
    });
    return this.error(f.fault, f.text);
  }

  private error(fault: RewardFault, text: string): RewardCodeError {
    if (fault.kind === "memory" || /stack overflow|sandbox failed/.test(`${fault.message} ${text}`)) this.dirty = true;
    return new RewardCodeError(fault, text);
  }
}
