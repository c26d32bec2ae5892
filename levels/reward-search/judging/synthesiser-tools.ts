/**
 * The synthesiser's two tools (docs/guides/judging.md, "Synthesiser"), as langchain tools whose zod schemas are
 * both what the model is shown and the parser of its calls (docs/spec/style.md §4):
 *
 * - `reask_vision(question, from_s, to_s)`: the vision judge asked one question about a window of the episode,
 *   shown at a higher frame rate (the injected `ReaskVision`).
 * - `run_trajectory_check(code)`: model-written JavaScript run on the recorded episode in the code judge's
 *   sandbox (levels/reward-search/sandbox/judge-sandbox.ts), with the code judge's limits.
 *
 * A call is untrusted: its arguments are checked against the episode (the window must lie inside it), and every
 * failure — bad arguments, a throw, an endless loop, a huge output, a failing vision call — comes back to the
 * model as the call's result, never as an exception (style.md §13). Only a clean stop (RunStopped) passes.
 */
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { RunStopped } from "../../../src/errors.ts";
import { type JudgeLimits, runJudgeCode } from "../sandbox/judge-sandbox.ts";
import type { TrajectoryRecord } from "../trajectory/record.ts";
import { MAX_RECORDED_ARGS, type SynthesiserToolCall } from "./synthesis.ts";

/** The vision judge asked about the window [fromS, toS] s of the judged episode, at a higher frame rate. */
export type ReaskVision = (question: string, fromS: number, toS: number) => Promise<string>;

export const SynthesiserToolLimits = z.strictObject({
  maxQuestionChars: z.number().int().min(20).max(4000).default(500).describe("the longest question reask_vision takes, characters"),
  maxCodeChars: z.number().int().min(100).max(100_000).default(20_000).describe("the longest code run_trajectory_check takes, characters"),
  maxResultChars: z.number().int().min(200).max(4000).default(2000).describe("the longest tool result the model is shown, characters"),
});
export type SynthesiserToolLimits = z.infer<typeof SynthesiserToolLimits>;

interface ToolContext {
  record: TrajectoryRecord;
  /** The code judge's sandbox limits, which a check runs under too. */
  judgeLimits: Partial<JudgeLimits>;
  reaskVision: ReaskVision;
  limits: SynthesiserToolLimits;
}

/** A tool result the model is shown: cut at `max` characters, saying so. */
const bounded = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max)}… (cut at ${max} of ${text.length} characters)`);

const messageOf = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e)).slice(0, 300);

/** The episode's length in seconds: the window reask_vision asks about lies within [0, this]. */
export const episodeSeconds = (r: TrajectoryRecord): number => r.steps * r.header.dt;

const reaskSchema = (c: ToolContext) => {
  const end = episodeSeconds(c.record);
  const shown = Number(end.toFixed(4));
  return z
    .object({
      question: z.string().min(1).max(c.limits.maxQuestionChars).describe("one question about what the frames show"),
      from_s: z.number().min(0).max(end).describe(`the window's start, seconds from the episode's start (0 to ${shown})`),
      to_s: z.number().min(0).max(end).describe(`the window's end, seconds, after from_s (at most ${shown})`),
    })
    .superRefine((a, ctx) => {
      if (a.from_s >= a.to_s)
        ctx.addIssue({ code: "custom", path: ["to_s"], message: `${a.to_s} is not after from_s ${a.from_s}; ask about a window of the episode` });
    });
};

const checkSchema = (c: ToolContext) =>
  z.object({
    code: z
      .string()
      .min(1)
      .max(c.limits.maxCodeChars)
      .describe("JavaScript defining function judge(traj) that returns a list of { id, value, note }, as a code judge's leaves"),
  });

/** A check's output as the model reads it: one line per result, or the fault. */
const checkText = async (code: string, c: ToolContext): Promise<string> => {
  const run = await runJudgeCode(code, c.record, c.judgeLimits);
  if (!run.ok) return `the check failed (${run.fault.tag}): ${run.fault.message}`;
  const lines = run.results.map((r) => {
    const o = (typeof r === "object" && r !== null ? r : {}) as { id?: unknown; value?: unknown; note?: unknown };
    const value = typeof o.value === "number" ? String(Number(o.value.toPrecision(6))) : JSON.stringify(o.value ?? null);
    return `- ${String(o.id ?? "(no id)")}: ${value}${typeof o.note === "string" && o.note ? ` — ${o.note}` : ""}`;
  });
  return [`${lines.length} result(s):`, ...lines].join("\n");
};

/** The two tools, bound to one episode and one vision judge. */
export const synthesiserTools = (c: ToolContext) => [
  tool(
    async ({ question, from_s, to_s }) => {
      try {
        return await c.reaskVision(question, from_s, to_s);
      } catch (e) {
        if (e instanceof RunStopped) throw e;
        return `reask_vision failed: ${messageOf(e)}`;
      }
    },
    {
      name: "reask_vision",
      description: "Ask the vision judge one question about a window of the episode, which it sees at a higher frame rate.",
      schema: reaskSchema(c),
    },
  ),
  tool(async ({ code }) => checkText(code, c), {
    name: "run_trajectory_check",
    description: "Run JavaScript on the recorded trajectory in a sandbox (no host access, the code judge's CPU and memory limits) and read what it measured.",
    schema: checkSchema(c),
  }),
];

type SynthesiserTool = ReturnType<typeof synthesiserTools>[number];

const argsText = (args: unknown): string => bounded(JSON.stringify(args ?? {}) ?? "{}", MAX_RECORDED_ARGS);

const describeIssues = (e: z.ZodError): string =>
  e.issues
    .slice(0, 4)
    .map((i) => `${i.path.join(".") || "(arguments)"}: ${i.message}`)
    .join("; ");

/**
 * Run one call the model made, or refuse it: `allowed` false once the budget is spent. The record holds the
 * arguments and the result the model is shown, both bounded.
 */
export async function runToolCall(
  tools: readonly SynthesiserTool[],
  call: { name: string; args: unknown },
  allowed: boolean,
  limits: SynthesiserToolLimits,
): Promise<SynthesiserToolCall> {
  const record = (status: SynthesiserToolCall["status"], result: string): SynthesiserToolCall => ({
    name: call.name.slice(0, 200),
    args: argsText(call.args),
    status,
    result: bounded(result, limits.maxResultChars),
  });
  if (!allowed) return record("refused", "refused: the budget of tool calls is spent; answer now with the verdict JSON object and no tool call");
  const t = tools.find((x) => x.name === call.name);
  if (!t) return record("invalid", `there is no tool ${JSON.stringify(call.name)}; the tools are ${tools.map((x) => x.name).join(", ")}`);
  const parsed = (t.schema as z.ZodType).safeParse(call.args);
  if (!parsed.success) return record("invalid", `${call.name}: bad arguments: ${describeIssues(parsed.error)}`);
  const out: unknown = await (t as { invoke(a: unknown): Promise<unknown> }).invoke(parsed.data);
  return record("ran", typeof out === "string" ? out : JSON.stringify(out));
}
