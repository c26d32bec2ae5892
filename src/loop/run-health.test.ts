import { describe, expect, it } from "vitest";
import { parseRunConfig } from "./run-config.ts";
import { runProblems } from "./run-health.ts";
import type { EpisodeRecord } from "../store/run-records.ts";
import type { BankEvent } from "../store/bank.ts";

const cfg = parseRunConfig({ family: "interphyre", levels: ["catapult"], agent: "hexa" }, "cfg");
const usage = { calls: 4, input: 1, output: 1, cached: 0, costUsd: 0, unpricedCalls: 0, cacheHits: 0 };
const ep = (tools: string[]): EpisodeRecord =>
  ({ phase: "stream", trajectory: { agent: "hexa", steps: tools.map((tool) => ({ tool })) } }) as unknown as EpisodeRecord;
const failure = (round: number): BankEvent =>
  ({ schemaVersion: 1, type: "evolver_failure", round, error: `bad ${round}`, evidence: [], reason: "" }) as BankEvent;

describe("runProblems", () => {
  it("finds nothing in a sound run", () => {
    expect(runProblems({ config: cfg, episodes: [ep(["(none)", "simulate_action"])], usage, events: new Map([["catapult", []]]) })).toEqual([]);
  });
  it("names a run whose episodes never made a tool call", () => {
    const [p] = runProblems({ config: cfg, episodes: [ep(["(none)"]), ep(["(none)", "(none)"])], usage });
    expect(p).toMatchObject({ kind: "no_tool_call", fatal: true });
    expect(p!.message).toMatch(/^no episode made a tool call \(2 episode\(s\), 3 turn\(s\)\)/);
  });
  it("names an evolver that failed every update, but not one that failed some", () => {
    const all = runProblems({ config: cfg, episodes: [], usage, events: new Map([["catapult", [failure(0), failure(1)]]]) });
    expect(all).toEqual([
      {
        kind: "evolver_failed_every_update",
        fatal: true,
        message: "the evolver failed every bank update (2), so the bank never learned anything; the first failure: bad 0",
      },
    ]);
    const add = { schemaVersion: 1, type: "add", round: 1, reason: "contrastive distillation" } as unknown as BankEvent;
    expect(runProblems({ config: cfg, episodes: [], usage, events: new Map([["catapult", [failure(0), add]]]) })).toEqual([]);
  });
  it("names a run whose every episode failed on one and the same error, but not one with another error or a success", () => {
    const refused = 'ERROR: the training failed (unknown_task): unknown task "cartpole"; this trainer serves: reach';
    const failing = (observation: string, success = false): EpisodeRecord =>
      ({
        phase: "stream",
        trajectory: {
          agent: "heuristic (no LLM)",
          success,
          steps: [
            { tool: "describe_task", ok: true, observation: "a task" },
            { tool: "finish", ok: false, observation },
          ],
        },
      }) as unknown as EpisodeRecord;
    const [p] = runProblems({ config: cfg, episodes: [failing(refused), failing(refused)], usage });
    expect(p).toMatchObject({ kind: "every_episode_failed_alike", fatal: true });
    expect(p!.message).toBe(
      `every episode failed (2), each on the same error from finish: ${refused}; the result measures that cause, not the method: fix it, then run again`,
    );
    expect(runProblems({ config: cfg, episodes: [failing(refused), failing("ERROR: x=6.2 is outside [-4.5, 4.5]")], usage })).toEqual([]);
    expect(runProblems({ config: cfg, episodes: [failing(refused), failing(refused, true)], usage })).toEqual([]);
    expect(runProblems({ config: cfg, episodes: [failing(refused)], usage })).toEqual([]);
  });
  it("notes estimated usage without failing the run", () => {
    expect(runProblems({ config: cfg, episodes: [], usage: { ...usage, estimatedCalls: 3 } })).toEqual([
      {
        kind: "usage_estimated",
        fatal: false,
        message: "3 of 4 model call(s) came back without usage from the server; their tokens (and cost) are hexa's estimate, marked estimated in usage.jsonl",
      },
    ]);
  });
});
