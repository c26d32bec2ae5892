import { rewardLayoutOf } from "../sandbox/contract.ts";
import type { CodeCheck } from "../../../src/search/redebug.ts";
import { checkReward, type CheckBatch } from "../sandbox/reward-check.ts";
import { sampleTransitions } from "../tools/check_reward.ts";
import type { RewardTask, TaskInstance } from "../task.ts";

/**
 * The search's check port for reward search (RF-Agent's re-debug, docs/spec/reward-search.md §8.4): check_reward's
 * test without training — compile the code in a fresh sandbox and run it on `transitions` sampled transitions of
 * the instance — answering null when it ran without a fault, else its report (each fault with its kind and line).
 * The transitions are sampled once per task instance.
 */
export const rewardCodeCheck = (transitions: number): CodeCheck<RewardTask, TaskInstance> => {
  const sampled = new Map<string, { layout: Parameters<typeof checkReward>[1]; batches: CheckBatch[] }>();
  return async ({ task, instance, code }) => {
    const key = `${task.id}#${instance.seed}`;
    let input = sampled.get(key);
    if (!input) {
      await task.prepare?.();
      input = {
        layout: rewardLayoutOf(task, instance),
        batches: sampleTransitions(task, instance, transitions),
      };
      sampled.set(key, input);
    }
    const check = await checkReward(code, input.layout, input.batches);
    return check.ok ? null : check.report;
  };
};
