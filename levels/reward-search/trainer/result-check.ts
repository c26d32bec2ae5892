import { realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { isInside } from "../../../src/util/path-inside.ts";
import { listTasks, getTask } from "../tasks/index.ts";
import type { HelloMessage, ResultMessage, TrainMessage } from "./protocol.ts";

/**
 * The host's check of a trainer's result before anything records or caches it (docs/trainer-protocol.md,
 * "What the host checks"): F on exactly the evaluation seeds sent, every F inside the task's range, the policy
 * a file inside the job's own directory. A trainer that answers otherwise is broken or hostile, whatever its
 * numbers say.
 */

/** F's range of a task: hexa's own task when it has one by that id, else what the trainer's hello announced. */
export const fitnessRangeOf = (task: string, hello: HelloMessage): readonly [number, number] | undefined =>
  (listTasks() as string[]).includes(task) ? getTask(task).fitness.range : hello.tasks.find((t) => t.id === task)?.fitness?.range;

/** Rounding in a sum of per-step increments may land a hair outside a range's exact bound. */
const slack = ([lo, hi]: readonly [number, number]) => 1e-9 * Math.max(1, hi - lo);

const sortedSeeds = (seeds: readonly number[]) => JSON.stringify([...seeds].sort((a, b) => a - b));

const policyProblem = (jobDir: string, policy: string): string | null => {
  const dir = resolve(jobDir);
  const path = resolve(policy);
  if (!isInside(dir, path)) return `policy: ${JSON.stringify(policy)} is not inside the job's directory ${dir}`;
  if (!statSync(path, { throwIfNoEntry: false })?.isFile()) return `policy: ${JSON.stringify(policy)} is not a file`;
  let real: string;
  try {
    real = realpathSync(path);
    if (isInside(realpathSync(dir), real)) return null;
  } catch (e) {
    return `policy: ${JSON.stringify(policy)} cannot be resolved (${(e as Error).message})`;
  }
  return `policy: ${JSON.stringify(policy)} leads to ${real}, outside the job's directory ${dir}`;
};

/** What is wrong with a result's scores for this job (its seeds, its F range), as `field: problem`; null when nothing is. */
export const scoreProblem = (
  job: Pick<TrainMessage, "task" | "evalSeeds">,
  r: Omit<ResultMessage, "type" | "id">,
  range: readonly [number, number] | undefined,
): string | null => {
  const seeds = r.final.perSeed.map((s) => s.seed);
  if (sortedSeeds(seeds) !== sortedSeeds(job.evalSeeds))
    return `final.perSeed: F on seeds [${seeds.join(", ")}], not on the evaluation seeds sent [${job.evalSeeds.join(", ")}]`;
  if (range) {
    const fs: Array<[string, number]> = [
      ["final.fitness", r.final.fitness],
      ...r.final.perSeed.map((s, i): [string, number] => [`final.perSeed.${i}.fitness`, s.fitness]),
      ["bestCheckpoint.fitness", r.bestCheckpoint.fitness],
      ...r.fitnessCurve.map((c, i): [string, number] => [`fitnessCurve.${i}.fitness`, c.fitness]),
    ];
    const out = fs.find(([, f]) => f < range[0] - slack(range) || f > range[1] + slack(range));
    if (out) return `${out[0]}: ${out[1]} is outside task ${job.task}'s F range [${range[0]}, ${range[1]}]`;
  }
  return null;
};

const prefixed = (where: string, problem: string | null): string | null => (problem === null ? null : `${where}${problem}`);

/** What is wrong with a result for this job, as `field: problem`; null when nothing is. */
export const resultProblem = (
  job: Pick<TrainMessage, "task" | "evalSeeds" | "jobDir">,
  r: Omit<ResultMessage, "type" | "id">,
  range: readonly [number, number] | undefined,
): string | null =>
  scoreProblem(job, r, range) ??
  policyProblem(job.jobDir, r.policy) ??
  (r.checkpointPolicies ?? []).reduce<string | null>((p, c, i) => p ?? prefixed(`checkpointPolicies.${i}.`, policyProblem(job.jobDir, c.policy)), null);
