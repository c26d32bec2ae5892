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
 * Files: contract.ts (layout, the batch's columns, limits), prelude.js (the code run in the sandbox before the reward
 * code: seeded Math.random, no clock, the polling builtins, the driver), quickjs-reward.ts (one compiled
 * program: calls, limits, state), call-cpu-limit.ts (a call's CPU limit) and thread-cpu.ts (its clock), faults.ts
 * (fault kinds and the texts the model is shown).
 *
 * Limits and isolation:
 * - CPU: a call (or the top-level code, at 10x) is interrupted once the CPU time of the thread running it
 *   passes `cpuMsPerCall` (call-cpu-limit.ts: other threads and machine load do not count); the interruption
 *   cannot be caught by the code. QuickJS polls the limit every ~10,000 jumps or calls; builtins whose work
 *   grows with their input (fill, indexOf, join, sort, repeat, JSON, Object.keys, …) are wrapped so that they
 *   add polls in proportion to their work. Not covered: spread and `new TypedArray(bigArray)`, each bounded by
 *   the memory cap, so a loop of them can overrun the limit.
 * - Memory: QuickJS's heap limit (`memoryBytes`) plus a cap on the instance's wasm memory (16 MiB base +
 *   `memoryBytes`), so the host never gives a candidate more than that.
 * - Globals: only the ECMAScript builtins; no require, import, process, fetch, timers or Date (Date.now() is 0,
 *   `new Date()` throws); Math.random is sfc32 seeded by `seed`; console.* are no-ops; WeakRef and
 *   FinalizationRegistry are removed; promise jobs never run. The code's own state persists across calls.
 */
import { DefaultIntrinsics, newQuickJSWASMModule, newVariant, type QuickJSContext, type QuickJSRuntime, RELEASE_SYNC } from "quickjs-emscripten";
import { checkLayout, SandboxLimits, type RewardLayout, type SandboxedReward } from "./contract.ts";
import { QuickJsReward, safely } from "./quickjs-reward.ts";

export { rewardLayout, SandboxLimits, type RewardLayout, type SandboxedReward } from "./contract.ts";
export { RewardCodeError, RewardFault, RewardFaultKind } from "./faults.ts";

const STACK_BYTES = 256 << 10;
/** The build's initial wasm memory (16 MiB: static data, C stack, first heap pages). */
const WASM_BASE_BYTES = 16 << 20;
const WASM_PAGE = 64 << 10;

export async function compileReward(code: string, layout: RewardLayout, limits?: Partial<SandboxLimits>): Promise<SandboxedReward> {
  const lim = SandboxLimits.parse(limits ?? {});
  checkLayout(layout);
  const { runtime, context } = await newCappedContext(lim.memoryBytes);
  let program: QuickJsReward | null = null;
  try {
    program = new QuickJsReward(runtime, context, layout, lim, cleanSource(code));
    program.init();
    return program;
  } catch (e) {
    if (program) program.dispose();
    else safely(() => runtime.dispose());
    throw e;
  }
}

/**
 * A QuickJS runtime and context on a wasm instance of their own, with the sandbox's memory and stack limits and
 * no Date: what reward code runs in, and a code judge's code too (levels/reward-search/sandbox/judge-sandbox.ts).
 */
export async function newCappedContext(memoryBytes: number): Promise<{ runtime: QuickJSRuntime; context: QuickJSContext }> {
  // Its own wasm memory, capped: QuickJS's heap limit counts allocations only approximately in this build, so
  // the cap on the whole wasm memory is what stops a large-array bomb (malloc fails, QuickJS throws out of memory).
  const pages = Math.ceil((WASM_BASE_BYTES + memoryBytes) / WASM_PAGE);
  const wasmMemory = new WebAssembly.Memory({ initial: WASM_BASE_BYTES / WASM_PAGE, maximum: pages });
  const module = await newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmMemory }));
  const runtime = module.newRuntime();
  try {
    runtime.setMemoryLimit(memoryBytes);
    runtime.setMaxStackSize(STACK_BYTES);
    return { runtime, context: runtime.newContext({ intrinsics: { ...DefaultIntrinsics, Date: false } }) };
  } catch (e) {
    safely(() => runtime.dispose());
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
