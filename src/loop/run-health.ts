import type { UsageTotal } from "../llm/accounting.ts";
import type { BankEvent } from "../store/bank.ts";
import type { EpisodeRecord } from "../store/run-records.ts";
import type { RunConfig } from "./run-config.ts";

/**
 * What makes a finished run's numbers untrustworthy although every step "worked": a model server that never
 * made a tool call (its tool parser off), an evolver that failed every update (the bank never learned), a
 * server that reported no usage (tokens and cost are estimates), episodes that all failed on one and the same
 * error (a trainer or tool that cannot serve them). `fatal` ones make `hexa run` exit non-zero.
 */
export interface RunProblem {
  kind: "no_tool_call" | "evolver_failed_every_update" | "every_episode_failed_alike" | "usage_estimated";
  fatal: boolean;
  message: string;
}

const TOOL_PARSER_FIX = "start vLLM with --enable-auto-tool-choice --tool-call-parser <hermes, llama3_json, mistral, …>, llama.cpp's server with --jinja";

export interface HealthInput {
  config: RunConfig;
  episodes: readonly EpisodeRecord[];
  /** Every level's bank events (the log). */
  events?: ReadonlyMap<string, readonly BankEvent[]>;
  usage: UsageTotal;
}

/**
 * Two or more episodes, none a success, each with a failed tool call, and every failed call's observation the same
 * text: one cause (e.g. every training refused alike) made the whole result, not the method. Calls that were no
 * tool call at all are the no_tool_call problem's.
 */
const failedAlike = (episodes: readonly EpisodeRecord[]): RunProblem | undefined => {
  const played = episodes.filter((e) => e.phase !== "eval" && e.trajectory.steps.length > 0);
  if (played.length < 2 || played.some((e) => e.trajectory.success)) return undefined;
  const failed = played.map((e) => e.trajectory.steps.filter((s) => s.ok === false && s.tool !== "(none)"));
  if (failed.some((f) => f.length === 0)) return undefined;
  const causes = new Set(failed.flat().map((s) => s.observation));
  if (causes.size !== 1) return undefined;
  const [cause] = causes;
  const tools = [...new Set(failed.flat().map((s) => s.tool))].join(", ");
  return {
    kind: "every_episode_failed_alike",
    fatal: true,
    message: `every episode failed (${played.length}), each on the same error from ${tools}: ${cause!.slice(0, 300)}; the result measures that cause, not the method: fix it, then run again`,
  };
};

export const runProblems = (h: HealthInput): RunProblem[] => {
  const problems: RunProblem[] = [];
  const alike = failedAlike(h.episodes);
  if (alike) problems.push(alike);
  const played = h.episodes.filter((e) => e.phase !== "eval" && !e.trajectory.agent.startsWith("heuristic") && e.trajectory.steps.length > 0);
  if (played.length > 0 && played.every((e) => e.trajectory.steps.every((s) => s.tool === "(none)"))) {
    const turns = played.reduce((n, e) => n + e.trajectory.steps.length, 0);
    problems.push({
      kind: "no_tool_call",
      fatal: true,
      message: `no episode made a tool call (${played.length} episode(s), ${turns} turn(s)): the model answered in text only, so every result is a failure of the setup, not of the method; if its answers hold tool-call syntax (see llm-log.jsonl), ${TOOL_PARSER_FIX}`,
    });
  }
  if (h.config.evolver === "llm" && h.events) {
    const key = (e: BankEvent, level: string) => `${level}/${e.round}`;
    const failed = new Map<string, string>();
    const worked = new Set<string>();
    for (const [level, events] of h.events) {
      for (const e of events) {
        if (e.type === "evolver_failure") failed.set(key(e, level), e.error);
        else if (!((e.type === "add" || e.type === "lesson_added") && e.reason === "shipped bank")) worked.add(key(e, level));
      }
    }
    if (failed.size > 0 && worked.size === 0) {
      const [first] = failed.values();
      problems.push({
        kind: "evolver_failed_every_update",
        fatal: true,
        message: `the evolver failed every bank update (${failed.size}), so the bank never learned anything; the first failure: ${first}`,
      });
    }
  }
  const estimated = h.usage.estimatedCalls ?? 0;
  if (estimated > 0) {
    problems.push({
      kind: "usage_estimated",
      fatal: false,
      message: `${estimated} of ${h.usage.calls} model call(s) came back without usage from the server; their tokens (and cost) are hexa's estimate, marked estimated in usage.jsonl`,
    });
  }
  return problems;
};
