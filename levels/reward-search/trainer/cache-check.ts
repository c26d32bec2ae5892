import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { ResultMessage, TrainMessage } from "./protocol.ts";
import { isInside } from "../../../src/util/path-inside.ts";
import { scoreProblem } from "./result-check.ts";

/** How far above its policy a job's folder (the one holding the pool's request.json) may lie. */
const FOLDER_DEPTH = 3;

/** The job folder above `policy` whose request.json (trainer/pool.ts) is of this job, or undefined. */
const jobFolderOf = (policy: string, job: Pick<TrainMessage, "task" | "reward" | "seed">): string | undefined => {
  let dir = dirname(resolve(policy));
  for (let i = 0; i < FOLDER_DEPTH; i++, dir = dirname(dir)) {
    const request = join(dir, "request.json");
    if (!existsSync(request)) continue;
    try {
      const r = JSON.parse(readFileSync(request, "utf8")) as Partial<TrainMessage>;
      return r.task === job.task && r.reward === job.reward && r.seed === job.seed ? dir : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
};

/**
 * A job that keeps its checkpoint policies is served only while every one of them is still a file in the folder of
 * the job that trained it: a judge of its checkpoints reads them, so a deleted one is trained again.
 */
const keptPoliciesProblem = (job: Pick<TrainMessage, "task" | "reward" | "seed">, r: Omit<ResultMessage, "type" | "id">): string | null => {
  if (!r.checkpointPolicies?.length) return "checkpointPolicies: the entry keeps no checkpoint policies";
  for (const [i, c] of r.checkpointPolicies.entries()) {
    const folder = existsSync(c.policy) ? jobFolderOf(c.policy, job) : undefined;
    if (!folder || !isInside(realpathSync(folder), realpathSync(c.policy)))
      return `checkpointPolicies.${i}.policy: ${JSON.stringify(c.policy)} is gone or not inside the folder of the job that trained it`;
  }
  return null;
};

/**
 * A cached result checked as a fresh one is (trainer/result-check.ts) before it is served: F on the evaluation
 * seeds of this job and inside the task's range, and a policy file that still exists lying inside the folder of
 * the job that trained it (the job's directory is not recorded in the cache; a policy deleted since is read by
 * nothing and no reason to train again). An entry edited by hand or written by another program that fails is a miss.
 */
export const cachedResultProblem = (
  job: Pick<TrainMessage, "task" | "evalSeeds" | "reward" | "seed" | "keepPolicies">,
  r: Omit<ResultMessage, "type" | "id">,
  range: readonly [number, number] | undefined,
): string | null => {
  const score = scoreProblem(job, r, range) ?? (job.keepPolicies ? keptPoliciesProblem(job, r) : null);
  if (score || !existsSync(r.policy)) return score;
  const folder = jobFolderOf(r.policy, job);
  if (folder && isInside(realpathSync(folder), realpathSync(r.policy))) return null;
  return `policy: ${JSON.stringify(r.policy)} is not inside the folder of the job that trained it`;
};
