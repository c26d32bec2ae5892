import { z } from "zod";

/**
 * The reward-search family's action (docs/spec/reward-search.md §1): reward code. The heuristic designer also records the term
 * weights it composed the code from (`design`), which its evolver learns from; an LLM's action is code only.
 */
export const RewardAction = z.object({
  code: z.string().min(1),
  design: z.record(z.string(), z.number()).optional().describe("term → weight, when composed by the heuristic designer"),
  policy: z.string().optional().describe("the policy file of the committed training (its trainer job), for pictures of its rollout"),
});
export type RewardAction = z.infer<typeof RewardAction>;

export const rewardActionOf = (action: unknown): RewardAction | undefined => {
  const p = RewardAction.safeParse(action);
  return p.success ? p.data : undefined;
};

/** Reward code cut for prompts and reports: whole up to `max` characters. */
export const renderRewardAction = (action: unknown, max = 1500): string => {
  const a = rewardActionOf(action);
  if (!a) return JSON.stringify(action);
  const code = a.code.trim();
  const shown = code.length > max ? `${code.slice(0, max)}\n… [${code.length - max} characters cut]` : code;
  return `reward code:\n${shown}`;
};
