import { rewardLayoutOf } from "./sandbox/contract.ts";
import type { TaskEnv } from "../../src/family/task-env.ts";
import { toolInputs, toolSpecs } from "../../tools/tool-specs.ts";
import check_reward from "./tools/check_reward.ts";
import { callRewardTool, runParsedRewardTool, type RewardTool } from "./tools/reward-tool.ts";
import describe_task from "./tools/describe_task.ts";
import finish from "./tools/finish.ts";
import type { RewardSession } from "./tools/session.ts";
import train_policy from "./tools/train_policy.ts";
import { getTask } from "./tasks/index.ts";
import { rewardSearchPrompt } from "./prompt.ts";

/** The reward-search actor's tools (docs/spec/reward-search.md §5). */
export const REWARD_TOOLS: readonly RewardTool[] = [describe_task, check_reward, train_policy, finish] as readonly RewardTool[];

/** A task at a seed, with what its session shares (trainer, budgets, check size) and the turn budget of the prompt. */
export type RewardEnvRequest = Pick<RewardSession, "trainer" | "budgets" | "checkTransitions" | "maxTrainings"> & {
  task: string;
  seed: number;
  maxTurns: number;
};

/** A session over one task instance (also what the heuristic designer calls directly). */
export const openRewardSession = (r: RewardEnvRequest): RewardSession => {
  const task = getTask(r.task);
  return {
    task,
    instance: task.generate(r.seed),
    trainer: r.trainer,
    budgets: r.budgets,
    checkTransitions: r.checkTransitions,
    trainings: 0,
    ...(r.maxTrainings === undefined ? {} : { maxTrainings: r.maxTrainings }),
  };
};

export const openRewardEnv = async (r: RewardEnvRequest): Promise<TaskEnv> => {
  const session = openRewardSession(r);
  const { actionKind } = rewardLayoutOf(session.task, session.instance);
  return {
    level: session.task.id,
    seed: session.instance.seed,
    tools: toolSpecs(REWARD_TOOLS),
    prompt: rewardSearchPrompt(session.task, session.instance, r.budgets, r.maxTurns, actionKind, r.maxTrainings),
    call: (name, args, onProgress) => callRewardTool(REWARD_TOOLS, session, name, args, onProgress),
    parsed: { inputs: toolInputs(REWARD_TOOLS), call: (name, args, onProgress) => runParsedRewardTool(REWARD_TOOLS, session, name, args, onProgress) },
    close: async () => {},
  };
};
