/**
 * The faults of reward code and their texts (reward-sandbox.ts gives the contract). Each text is written for the
 * model that wrote the code: what went wrong, where (line and source where known), and what to change. The
 * functions here are pure; quickjs-reward.ts decides when each applies and keeps the interpreter's state.
 */
import { z } from "zod";
import type { RewardBatchInput } from "../task.ts";
import { ModelOutputError } from "../../../src/errors.ts";
import type { RewardLayout } from "./contract.ts";

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

/** A fault with the text the model is shown. */
export interface FaultText {
  fault: RewardFault;
  text: string;
}

/** A value the code threw, as the prelude's `describe` reads it inside the sandbox. */
export interface Thrown {
  name: string;
  message: string;
  stack: string;
}

export interface ThrownContext {
  phase: "compile" | "call";
  /** Envs of the call (phase "call"). */
  n?: number;
  /** The CPU limit stopped the code. */
  interrupted: boolean;
  /** The limit of this phase, ms. */
  limitMs: number;
  memoryBytes: number;
  /** The reward code's lines (after cleanSource). */
  lines: readonly string[];
  layout: RewardLayout;
}

/** The fault of a thrown value: timeout, memory, syntax (at compile time) or exception. */
export function thrownFault(d: Thrown, c: ThrownContext): FaultText {
  const line = lineOf(d.stack);
  const src = line !== undefined ? c.lines[line - 1]?.trim() : undefined;
  const raw = `${d.name}: ${d.message}`;
  const where = c.phase === "call" && c.n !== undefined ? `${c.n} env${c.n === 1 ? "" : "s"}` : "top-level code";
  if (c.interrupted) {
    // QuickJS's line for an interrupt is where the loop began, not where it ran: report the function instead.
    const fn = /at ([\w$.]+) \(reward\.js:/.exec(d.stack)?.[1];
    return { fault: { kind: "timeout", message: raw }, text: timeoutText(where, fn, c.limitMs) };
  }
  if (d.name === "InternalError" && /out of memory|too long|allocation|array too large/i.test(d.message)) {
    return { fault: { kind: "memory", message: raw, ...(line ? { line } : {}) }, text: memoryText(raw, line, c.memoryBytes, src) };
  }
  if (d.name === "SyntaxError" && c.phase === "compile") {
    return { fault: { kind: "syntax", message: raw, ...(line ? { line } : {}) }, text: syntaxText(raw, line, src) };
  }
  return { fault: { kind: "exception", message: raw, ...(line ? { line } : {}) }, text: exceptionText(raw, line, src, c.phase, c.layout, d.stack) };
}

/**
 * A failure on the host side of a call: allocation in the sandbox's heap (memory), or a broken interpreter
 * (`breaks`: every later call reports the same fault).
 */
export function hostFault(e: unknown, memoryBytes: number): FaultText & { breaks: boolean } {
  const msg = e instanceof Error ? e.message : String(e);
  if (/memory|allocate/i.test(msg)) return { fault: { kind: "memory", message: msg }, text: memoryText(msg, undefined, memoryBytes, undefined), breaks: false };
  if (e instanceof RangeError && /call stack/i.test(msg)) {
    // Native recursion inside QuickJS (e.g. JSON.stringify of a deeply nested value) ran out of host stack.
    return {
      fault: { kind: "exception", message: `stack overflow (${msg})` },
      text: `reward code nested too deeply (stack overflow in a builtin such as JSON.stringify); remove the deep nesting or recursion`,
      breaks: true,
    };
  }
  return {
    fault: { kind: "exception", message: msg },
    text: `reward sandbox failed while running the code (${msg}); simplify the code and do not redefine the sandbox's builtins`,
    breaks: true,
  };
}

const MAX_SHOWN_FIELDS = 12;

/** The first NaN or ±Infinity in the components (first: a NaN total usually comes from one) or the total, or null. */
export function nonFiniteFault(total: Float64Array, components: Record<string, Float64Array>, b: RewardBatchInput, layout: RewardLayout): FaultText | null {
  const bad = (arr: Float64Array) => {
    for (let i = 0; i < arr.length; i++) if (!Number.isFinite(arr[i]!)) return i;
    return -1;
  };
  const series: [string, Float64Array][] = [
    ...Object.entries(components).map(([name, arr]): [string, Float64Array] => [`component "${name}"`, arr]),
    ["total", total],
  ];
  for (const [what, arr] of series) {
    const i = bad(arr);
    if (i < 0) continue;
    const value = String(arr[i]);
    return {
      fault: { kind: "nan", message: `${what} is ${value} for env ${i}` },
      text:
        `reward ${what} is ${value} for env ${i} of ${b.n} (inputs: ${inputsOf(b, i, layout)}); ` +
        `guard divisions, Math.log, Math.sqrt, Math.pow and Math.acos against zero, negative or out-of-range arguments so every value is a finite number`,
    };
  }
  return null;
}

function inputsOf(b: RewardBatchInput, i: number, l: RewardLayout): string {
  const { observation, actionNames, actionKind, info } = l;
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

/** Line of the first `reward.js:<line>` frame of a QuickJS stack (`    at f (reward.js:3:7)`). */
function lineOf(stack: string): number | undefined {
  const m = /reward\.js:(\d+)/.exec(stack);
  return m ? Number(m[1]) : undefined;
}

const at = (line: number | undefined, src: string | undefined) =>
  line === undefined ? "" : ` at line ${line}${src ? ` (\`${src.length > 120 ? `${src.slice(0, 117)}...` : src}\`)` : ""}`;

const fieldsHint = (l: RewardLayout) =>
  `obs and nextObs have ${l.observation.map((n) => `.${n}`).join(", ") || "no fields"}; ` +
  (l.actionKind === "discrete"
    ? `action is the chosen index (0..${Math.max(0, l.actionNames.length - 1)}: ${l.actionNames.join(", ")})`
    : `action has ${l.actionNames.map((n) => `.${n}`).join(", ")}`) +
  `; info has ${l.info.map((n) => `.${n}`).join(", ") || "no fields"}`;

function syntaxText(raw: string, line: number | undefined, src: string | undefined): string {
  return `reward code does not parse: ${raw}${at(line, src)}; fix the syntax there. The code must be plain JavaScript (no TypeScript types, no import/require) defining function reward(obs, action, nextObs, info)`;
}

export function missingText(what: string, l: RewardLayout): string {
  return `reward code: ${what}; define at top level function reward(obs, action, nextObs, info) returning { total: <number>, components: { <name>: <number>, ... } } (${fieldsHint(l)}), or function rewardBatch(batch)`;
}

function exceptionText(raw: string, line: number | undefined, src: string | undefined, phase: "compile" | "call", l: RewardLayout, stack: string): string {
  const sandboxOnly =
    /\b(require|process|fetch|import|module|exports|window|document|performance|setTimeout|Buffer)\b/.test(raw) ||
    /could not load module|dynamic import/i.test(raw);
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

function timeoutText(where: string, fn: string | undefined, ms: number): string {
  const stopped = fn === undefined || fn === "<eval>" ? "" : ` (stopped inside function ${fn})`;
  return `reward code ran longer than ${ms} ms of CPU time on ${where}${stopped}; remove endless or long loops: a reward should do a few arithmetic operations per transition`;
}

function memoryText(raw: string, line: number | undefined, memoryBytes: number, src: string | undefined): string {
  return `reward code exceeded the sandbox memory limit of ${Math.round(memoryBytes / (1 << 20))} MiB (${raw})${at(line, src)}; do not build large arrays or strings, and keep no state that grows from call to call`;
}

export function shapeText(message: string, form: "perEnv" | "batched"): string {
  const want =
    form === "batched"
      ? "rewardBatch must return { total: <array of n numbers>, components: { <name>: <array of n numbers>, ... } }"
      : "reward must return { total: <number>, components: { <name>: <number>, ... } }";
  return `reward code returned the wrong shape: ${message}; ${want}, with the same component names on every call`;
}
