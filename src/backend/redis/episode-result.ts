import type { LevelFamily } from "../../family/family.ts";
import type { EpisodeJob } from "../../loop/episode-backend.ts";
import type { UsageLine } from "../../store/run-records.ts";
import { countedTurns, type Trajectory } from "../../store/trajectory.ts";

/**
 * What an episode's result must agree with to be recorded (docs/security.md, "What a coordinator checks"): anyone
 * who can write to Redis, or a hostile worker, can answer a job, so a result is checked against what the
 * coordinator knows of the job before anything of it is recorded or learnt from.
 */
export interface EpisodeFacts {
  /** The family's action schema and its own check of a trajectory (the level's action space, its score's range). */
  family: Pick<LevelFamily, "action" | "checks" | "records">;
  /** The turn budget T the job's agent plays under (the config's actor.maxTurns, or a baseline's own). */
  maxTurnsOf: (agent: EpisodeJob["agent"]) => number;
}

const shown = (v: unknown): string => (JSON.stringify(v) ?? String(v)).slice(0, 80);

/** Rounding in a sum of costs may differ in the last bits from one machine's order of addition to another's. */
const near = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/** The trajectory's own story: its budget, its turns counted from its steps, its steps numbered, its times finite and ≥ 0. */
const turnsProblem = (t: Trajectory, maxTurns: number): string | undefined => {
  if (t.maxTurns !== maxTurns) return `trajectory.maxTurns: ${t.maxTurns}, not the job's turn budget ${maxTurns}`;
  if (t.steps.length > maxTurns) return `trajectory.steps: ${t.steps.length} steps, more than the turn budget ${maxTurns}`;
  const want = countedTurns(t.success, t.steps.length, maxTurns);
  if (t.turns !== want)
    return `trajectory.turns: ${t.turns}, but ${t.steps.length} steps ${t.success ? "of a success count" : "of a failure count the whole budget,"} ${want}`;
  const misnumbered = t.steps.findIndex((s, i) => s.turn !== i + 1);
  if (misnumbered >= 0) return `trajectory.steps.${misnumbered}.turn: ${t.steps[misnumbered]!.turn}, not ${misnumbered + 1}`;
  const slow = t.steps.findIndex((s) => !(s.ms >= 0));
  if (slow >= 0) return `trajectory.steps.${slow}.ms: ${t.steps[slow]!.ms} is not a time`;
  if (!(t.wallMs >= 0)) return `trajectory.wallMs: ${t.wallMs} is not a time`;
  if (t.success && t.stopReason !== "success" && t.stopReason !== "finish") return `trajectory.success: true, yet it stopped for ${t.stopReason}`;
  if (!t.success && t.stopReason === "success") return "trajectory.success: false, yet it stopped for success";
  return undefined;
};

/** The job's share of a budget (reward search: trainings) is all its steps may have spent. */
const spentProblem = (job: EpisodeJob, t: Trajectory): string | undefined => {
  if (job.allowance === undefined) return undefined;
  const spent = t.steps.reduce((n, s) => n + (s.spent ?? 0), 0);
  return spent > job.allowance ? `trajectory.steps: ${spent} units spent, more than the job's allowance of ${job.allowance}` : undefined;
};

/** The model calls: each of the job's episode (phase, level, round, seed), an actor's, summing to the trajectory's usage. */
const usageProblem = (job: EpisodeJob, t: Trajectory, lines: readonly UsageLine[]): string | undefined => {
  const foreign = lines.findIndex((l) => l.role !== "actor" || l.phase !== job.phase || l.level !== job.level || l.round !== job.round || l.seed !== job.seed);
  if (foreign >= 0)
    return `usage.${foreign}: a call of ${shown({ role: lines[foreign]!.role, phase: lines[foreign]!.phase, level: lines[foreign]!.level, round: lines[foreign]!.round, seed: lines[foreign]!.seed })}, not of the job's episode`;
  const u = t.usage;
  const negative = (["input", "output", "cached", "calls", "costUsd"] as const).find((k) => !(u[k] >= 0));
  if (negative) return `trajectory.usage.${negative}: ${u[negative]} is below 0`;
  const sum = (k: "input" | "output" | "cached" | "costUsd") => lines.reduce((n, l) => n + l[k], 0);
  if (u.calls !== lines.length) return `trajectory.usage.calls: ${u.calls}, but the result records ${lines.length} model call(s)`;
  const off = (["input", "output", "cached", "costUsd"] as const).find((k) => !near(u[k], sum(k)));
  return off ? `trajectory.usage.${off}: ${u[off]}, but the result's model calls sum to ${sum(off)}` : undefined;
};

/** The action in the family's schema and the level's action space, and whatever else the family checks. */
const actionProblem = (job: EpisodeJob, t: Trajectory, family: EpisodeFacts["family"]): string | undefined => {
  if (t.action !== null) {
    const a = family.action.safeParse(t.action);
    if (!a.success) {
      const i = a.error.issues[0]!;
      return `trajectory.action${i.path.length ? `.${i.path.join(".")}` : ""}: ${i.message} (got ${shown(t.action)})`;
    }
  }
  const p = family.checks?.trajectoryProblem?.({ level: job.level, seed: job.seed, ...(job.allowance === undefined ? {} : { allowance: job.allowance }) }, t);
  return p === undefined ? undefined : `trajectory.${p}`;
};

/**
 * Why a worker's result cannot be the episode of `job` (the trajectory already parsed, of the job's level and
 * seed), as `field: problem`; undefined when it can be. `retrieved` must name entries of the bank the job sent.
 */
export const episodeResultProblem = (
  job: EpisodeJob,
  result: { trajectory: Trajectory; retrieved: readonly string[]; usage: readonly UsageLine[] },
  facts: EpisodeFacts,
): string | undefined => {
  const t = result.trajectory;
  const ids = new Set([...job.bank.skills, ...job.bank.mistakes, ...(job.bank.lessons ?? [])].map((e) => e.id));
  const unknown = result.retrieved.find((id) => !ids.has(id));
  return (
    turnsProblem(t, facts.maxTurnsOf(job.agent)) ??
    spentProblem(job, t) ??
    usageProblem(job, t, result.usage) ??
    actionProblem(job, t, facts.family) ??
    (unknown === undefined ? undefined : `retrieved: ${shown(unknown)} is no entry of the bank the job sent`)
  );
};
