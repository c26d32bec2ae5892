import type { Trajectory } from "../store/trajectory.ts";

/**
 * hexa episode's summary line. An episode the model endpoint broke off is a model failure, said as such with the
 * turns it got through: it is no outcome of the method, so it is not shown as a failure that used every turn.
 */
export const episodeOutcome = (t: Trajectory, cost: string): string => {
  const usage = `tokens in ${t.usage.input} (cached ${t.usage.cached}) out ${t.usage.output}, ${t.usage.calls} calls, ${cost}; ${(t.wallMs / 1000).toFixed(1)} s`;
  if (t.stopReason === "error")
    return `MODEL FAILURE (${t.error ?? "no detail"}); agent ${t.agent}, model ${t.model}; ended by the endpoint after ${t.steps.length} of ${t.maxTurns} turns, no outcome counted; ${usage}`;
  const outcome = t.success ? `SUCCESS in ${t.steps.length} turns` : `FAILURE (${t.stopReason}${t.error ? `: ${t.error}` : ""})`;
  return `${outcome}; agent ${t.agent}, model ${t.model}; turns counted ${t.turns}/${t.maxTurns}; ${usage}`;
};
