/**
 * The scripted synthesiser of the calibration bench (docs/benchmarks/judge-calibration.md): when no `--judge-model`
 * is given, a disagreement between the code judge and the vision judge is settled by this script in the
 * synthesiser's real loop (levels/reward-search/judging/synthesiser.ts), from what the loop sends it. First turn:
 * two tool calls, `reask_vision` about the episode's last second and `run_trajectory_check` measuring the root
 * body's travel along the forward direction; then the verdict, siding with the code judge (its score stands), with
 * both results quoted. It measures the loop's plumbing (tools run, budget, verdict schema), not a model's judgement.
 */
import type { Message, ToolCall, ToolSpec } from "../src/llm/chat-model.ts";

export const SCRIPTED_SYNTHESIS_RULE =
  "a disagreement is settled by a script that calls reask_vision on the episode's last second and run_trajectory_check on the root's forward travel, then sides with the code judge (bench/judge-calibration-synthesiser.ts)";

/** Forward travel of the root body (body 1), read from the trajectory as any check may. */
const TRAVEL_CHECK = `function judge(traj) {
  const f = traj.header.forward;
  const x0 = traj.initial.xpos.slice(3, 6);
  const x1 = traj.steps > 0 ? traj.row("xpos", traj.steps - 1).slice(3, 6) : x0;
  const d = (x1[0] - x0[0]) * f[0] + (x1[1] - x0[1]) * f[1] + (x1[2] - x0[2]) * f[2];
  return [{ id: "forward_travel", value: d, note: "root body travel along forward [m]" }];
}`;

const textOf = (messages: readonly Message[]): string => messages.map((m) => m.content).join("\n");

const call = (id: string, name: string, args: Record<string, unknown>): ToolCall => ({ id, name, args, rawArgs: JSON.stringify(args) });

/** The first turn's two tool calls, on the window the case message's episode length allows. */
const toolTurn = (text: string): ToolCall[] => {
  const seconds = Number(/ steps of [\d.]+ s \((\d+(?:\.\d+)?) s\)/.exec(text)?.[1] ?? "0");
  const calls = [call("scripted-check", "run_trajectory_check", { code: TRAVEL_CHECK })];
  if (seconds > 0)
    calls.unshift(
      call("scripted-reask", "reask_vision", {
        question: "Does the body still move in the last second of the episode?",
        from_s: Math.max(0, seconds - 1),
        to_s: seconds,
      }),
    );
  return calls;
};

/** The verdict: the code judge's score, passed by the threshold the prompt states, the tool results quoted. */
const verdict = (messages: readonly Message[]): string => {
  const text = textOf(messages);
  const code = Number(/Code judge: score (\d+(?:\.\d+)?)/.exec(text)?.[1]);
  const threshold = Number(/true exactly when score >= (\d+(?:\.\d+)?)/.exec(text)?.[1]);
  if (!Number.isFinite(code) || !Number.isFinite(threshold))
    throw new Error("bench/judge-calibration-synthesiser.ts: the case message has no code score or threshold");
  const results = messages.filter((m) => m.role === "tool").map((m) => `${m.name}: ${m.content}`);
  const reason = `Scripted: sides with the code judge's measurement. ${results.join(" | ")}`.slice(0, 1000);
  return JSON.stringify({ score: code, passed: code >= threshold, sided_with: "code", rotation: false, reason });
};

/** One turn of the scripted synthesiser: the tool calls while none was made and tools are offered, else the verdict. */
export const scriptedSynthesiserTurn = (messages: readonly Message[], tools: readonly ToolSpec[]): { text: string; toolCalls: ToolCall[] } => {
  const asked = messages.some((m) => m.role === "tool");
  if (!asked && tools.some((t) => t.name === "reask_vision")) return { text: "", toolCalls: toolTurn(textOf(messages)) };
  return { text: verdict(messages), toolCalls: [] };
};
