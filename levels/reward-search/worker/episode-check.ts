import type { Task } from "../../../src/family/family.ts";
import type { Trajectory } from "../../../src/store/trajectory.ts";
import { rewardActionOf } from "../action.ts";
import { getTask } from "../tasks/index.ts";
import { REMOTE_POLICY_PREFIX } from "./remote-outcome.ts";

/**
 * Why a trajectory a worker handed back cannot be an episode of this task (LevelFamily.checks.trajectoryProblem): its
 * score outside the task's F range, or a policy named by a path. A worker's trainings come back through the
 * trainings queue, whose results name their policy `remote:<worker>` (remote-outcome.ts); a path would be a file
 * on this machine that `hexa inspect` films and writes beside.
 */
export const remoteEpisodeProblem = (task: Task, t: Pick<Trajectory, "action" | "score">): string | undefined => {
  const [lo, hi] = getTask(task.level).fitness.range;
  const slack = 1e-9 * Math.max(1, hi - lo);
  if (t.score !== undefined && !(t.score >= lo - slack && t.score <= hi + slack))
    return `score: ${t.score} is outside task ${task.level}'s F range [${lo}, ${hi}]`;
  const policy = rewardActionOf(t.action)?.policy;
  if (policy !== undefined && !policy.startsWith(REMOTE_POLICY_PREFIX))
    return `action.policy: ${JSON.stringify(policy.slice(0, 80))} names a file; a worker's policy is ${REMOTE_POLICY_PREFIX}<worker>, never a path here`;
  return undefined;
};
