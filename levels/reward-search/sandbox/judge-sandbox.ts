/**
 * A code judge's code run on one recorded episode, in the reward code's sandbox (levels/reward-search/sandbox/,
 * docs/security.md): its own QuickJS interpreter on a capped wasm memory, the sandbox's prelude (seeded
 * Math.random, no clock, no host objects, builtins that poll the CPU limit), a CPU-time limit for the top-level
 * code and another for the call. The contract the judge's code is given:
 *
 *   function judge(traj) { return [{ id: "1.1", value: 0.82, score: 1, passed: true, note: "…" }, …] }
 *
 * `traj` holds `steps`, `dt`, `header` (the record's header: bodies, joints, forward, terms), one Float64Array per
 * column (`obs`, `action`, `terms`, `qpos`, `qvel`, `xpos`, `xquat`, `cvel`, `cfrcExt`, `terminated`,
 * `truncated`: row t at `[t * width, (t + 1) * width)`, widths in `traj.width`), `initial` (the state after
 * reset), `row(name, t)` and `term(name)`. The code measures leaves only; hexa scores the tree (tree-score.ts).
 *
 * Nothing the code does stops the host: a throw, an endless loop, a memory bomb, a wrong shape or a host access
 * attempt becomes a fault with a tag (`error`, `timeout`, `memory`, `shape`) and the judgment scores 0.
 * Each run gets a fresh interpreter, so no state passes from one episode's judgment to the next.
 */
import { readFileSync } from "node:fs";
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten";
import { z } from "zod";
import { CallCpuLimit } from "./call-cpu-limit.ts";
import { safely } from "./quickjs-reward.ts";
import { newCappedContext } from "./reward-sandbox.ts";
import type { TrajectoryRecord } from "../trajectory/record.ts";
import { packTrajectory } from "./trajectory-pack.ts";

const PRELUDE = readFileSync(new URL("./prelude.js", import.meta.url), "utf8");
const DRIVER = readFileSync(new URL("./judge-driver.js", import.meta.url), "utf8");
const CODE_FILE = "judge.js";
/** The prelude's reward layout is unused here: the judge's driver replaces its `makeDriver`. */
const NO_LAYOUT = JSON.stringify({ observation: [], actionNames: [], actionKind: "discrete", info: [] });
const DESCRIBE_MS = 20;
const MAX_OUTPUT_CHARS = 1 << 20;
/** JudgeLimits.maxResults's upper bound: the host's own check of the driver's count. */
const MAX_RESULTS_READ = 1024;

export const JudgeLimits = z.strictObject({
  cpuMs: z.number().positive().max(60_000).default(2000).describe("CPU time the judge's top-level code, and then its call, may each take, ms"),
  memoryBytes: z
    .number()
    .int()
    .min(1 << 20)
    .max(1 << 30)
    .default(32 << 20)
    .describe("heap the judge's code may use beyond the trajectory's own copy, bytes"),
  maxTrajectoryBytes: z
    .number()
    .int()
    .min(1 << 10)
    .max(256 << 20)
    .default(32 << 20)
    .describe("the largest packed trajectory a judge is given, bytes"),
  maxResults: z.number().int().min(1).max(1024).default(128).describe("the most leaf results a judge may return"),
  seed: z.number().int().min(0).default(0).describe("seed of the sandbox's Math.random"),
});
export type JudgeLimits = z.infer<typeof JudgeLimits>;

/** How a judge's run failed: every such fault scores its leaves 0 (levels/reward-search/judging/leaf-result.ts). */
const RunFaultTag = z.enum(["error", "timeout", "memory", "shape"]);
type RunFaultTag = z.infer<typeof RunFaultTag>;

export type JudgeRun = { ok: true; results: unknown[] } | { ok: false; fault: { tag: RunFaultTag; message: string } };

const MAX_NOTE = 500;
const MAX_VALUE = 120;

/** Run a judge's code on one episode; never throws for anything the code does (a bad record is a ConfigError). */
export async function runJudgeCode(code: string, record: TrajectoryRecord, limits?: Partial<JudgeLimits>): Promise<JudgeRun> {
  const lim = JudgeLimits.parse(limits ?? {});
  const packed = packTrajectory(record, lim.maxTrajectoryBytes);
  const { runtime, context } = await newCappedContext(lim.memoryBytes + packed.bytes);
  const run = new JudgeInterpreter(context, lim);
  runtime.setInterruptHandler(() => run.shouldInterrupt());
  try {
    return run.judge(code, packed.layoutJson, packed.data);
  } catch (e) {
    return run.hostFault(e);
  } finally {
    run.dispose();
    // After running out of memory QuickJS may leak objects and abort when freed; the instance is dropped instead.
    if (!run.dirty) safely(() => runtime.dispose());
  }
}

type Outcome = { ok: true; handle: QuickJSHandle } | { ok: false; error: QuickJSHandle };
type Fault = JudgeRun & { ok: false };

class JudgeInterpreter {
  private readonly cpuLimit = new CallCpuLimit();
  private interrupted = false;
  dirty = false;
  private readonly handles: QuickJSHandle[] = [];

  constructor(
    private readonly ctx: QuickJSContext,
    private readonly lim: JudgeLimits,
  ) {}

  judge(code: string, layoutJson: string, data: Float64Array): JudgeRun {
    const ctx = this.ctx;
    const prelude = this.keep(this.trusted(ctx.evalCode(PRELUDE, "hexa-prelude.js", { type: "global", strict: true })));
    const tools = this.keep(
      this.trusted(ctx.callFunction(prelude, ctx.undefined, this.keep(ctx.newString(NO_LAYOUT)), this.keep(ctx.newNumber(this.lim.seed)))),
    );
    const describe = this.keep(ctx.getProp(tools, "describe"));
    const makeDriver = this.keep(this.trusted(ctx.evalCode(DRIVER, "hexa-judge-driver.js", { type: "global", strict: true })));
    const args = [ctx.newString(layoutJson), ctx.newNumber(this.lim.maxResults), ctx.newNumber(MAX_NOTE), ctx.newNumber(MAX_VALUE)].map((h) => this.keep(h));
    const driver = this.keep(this.trusted(ctx.callFunction(makeDriver, ctx.undefined, ...args)));
    const runFn = this.keep(ctx.getProp(driver, "run"));
    const top = this.guarded(() => ctx.evalCode(code, CODE_FILE, { type: "global", strict: false }));
    if (!top.ok) return this.thrown(top.error, describe, "while running its top-level code");
    this.keep(top.handle);
    const found = this.keep(this.trusted(ctx.evalCode(`typeof judge === "undefined" ? undefined : judge`, "hexa-bind.js")));
    const buf = this.keep(ctx.newArrayBuffer(data.buffer as ArrayBuffer));
    const out = this.guarded(() => ctx.callFunction(runFn, ctx.undefined, found, buf));
    if (!out.ok) return this.thrown(out.error, describe, "while judging");
    const text = this.keep(out.handle);
    return ctx.typeof(text) === "string"
      ? readOutput(ctx.getString(text))
      : { ok: false, fault: { tag: "error", message: "the judge's driver returned no text" } };
  }

  shouldInterrupt(): boolean {
    if (!this.cpuLimit.exceeded()) return false;
    this.interrupted = true;
    return true;
  }

  hostFault(e: unknown): Fault {
    const message = e instanceof Error ? e.message : String(e);
    if (/memory|allocate/i.test(message)) return this.memory(message);
    this.dirty = true;
    return { ok: false, fault: { tag: "error", message: `the sandbox failed while running the judge's code (${message.slice(0, 300)})` } };
  }

  dispose(): void {
    for (const h of this.handles.reverse()) if (h.alive) safely(() => h.dispose());
    safely(() => this.ctx.dispose());
  }

  private keep(h: QuickJSHandle): QuickJSHandle {
    this.handles.push(h);
    return h;
  }

  /** hexa's own code (prelude, driver): a failure there is a bug, reported as an error fault by the caller. */
  private trusted(r: { error?: QuickJSHandle; value?: QuickJSHandle }): QuickJSHandle {
    if (r.error) {
      const d = JSON.stringify(this.ctx.dump(r.error));
      r.error.dispose();
      throw new Error(`hexa's judge driver failed: ${d}`);
    }
    return r.value!;
  }

  private guarded(f: () => { error?: QuickJSHandle; value?: QuickJSHandle }): Outcome {
    this.interrupted = false;
    this.cpuLimit.start(this.lim.cpuMs);
    try {
      const r = f();
      return r.error ? { ok: false, error: r.error } : { ok: true, handle: r.value! };
    } finally {
      this.cpuLimit.stop();
    }
  }

  private thrown(error: QuickJSHandle, describe: QuickJSHandle, when: string): Fault {
    this.keep(error);
    const interrupted = this.interrupted;
    if (interrupted)
      return {
        ok: false,
        fault: { tag: "timeout", message: `the judge's code ran longer than ${this.lim.cpuMs} ms of CPU time ${when}; remove endless or long loops` },
      };
    const d = this.describe(error, describe);
    const line = /judge\.js:(\d+)/.exec(d.stack)?.[1];
    const raw = `${d.name}: ${d.message}`;
    if (d.name === "InternalError" && /out of memory|too long|allocation|array too large/i.test(d.message)) return this.memory(raw);
    if (/stack overflow/i.test(d.message)) this.dirty = true;
    return { ok: false, fault: { tag: "error", message: `the judge's code threw ${when}: ${raw}${line ? ` at line ${line}` : ""}` } };
  }

  private memory(message: string): Fault {
    this.dirty = true;
    return {
      ok: false,
      fault: {
        tag: "memory",
        message: `the judge's code exceeded the sandbox memory limit of ${Math.round(this.lim.memoryBytes / (1 << 20))} MiB (${message.slice(0, 200)})`,
      },
    };
  }

  /** Name, message and stack of a thrown value, read by the prelude's `describe` under a short deadline. */
  private describe(error: QuickJSHandle, describe: QuickJSHandle): { name: string; message: string; stack: string } {
    const unknown = { name: "Error", message: "(the thrown value could not be read)", stack: "" };
    this.cpuLimit.start(DESCRIBE_MS);
    try {
      const r = this.ctx.callFunction(describe, this.ctx.undefined, error);
      if (r.error) {
        r.error.dispose();
        return unknown;
      }
      return JSON.parse(r.value.consume((h) => this.ctx.getString(h))) as { name: string; message: string; stack: string };
    } catch {
      return unknown;
    } finally {
      this.cpuLimit.stop();
    }
  }
}

/**
 * The driver's JSON text: `{ results }` or `{ fault, message }`, non-finite numbers revived. The judge's code can
 * reach the builtins the driver's output passes through (e.g. a toJSON on Object.prototype), so the text is
 * checked again here: anything else is a shape fault.
 */
function readOutput(text: string): JudgeRun {
  const shape = (message: string): JudgeRun => ({ ok: false, fault: { tag: "shape", message } });
  if (text.length > MAX_OUTPUT_CHARS) return shape(`the judge's results are ${text.length} characters of JSON, more than ${MAX_OUTPUT_CHARS}`);
  let v: unknown;
  try {
    v = JSON.parse(text, (_k, x: unknown) => (x !== null && typeof x === "object" && "$num" in x ? Number((x as { $num: unknown }).$num) : x));
  } catch {
    return shape("the judge's results could not be read (do not redefine the sandbox's builtins)");
  }
  const o = (typeof v === "object" && v !== null ? v : {}) as { results?: unknown; fault?: unknown; message?: unknown };
  if (Array.isArray(o.results) && o.results.length <= MAX_RESULTS_READ) return { ok: true, results: o.results };
  const tag = RunFaultTag.safeParse(o.fault);
  if (tag.success && typeof o.message === "string") return { ok: false, fault: { tag: tag.data, message: o.message.slice(0, 1000) } };
  return shape("the judge's results are not a list of leaf results (do not redefine the sandbox's builtins)");
}
