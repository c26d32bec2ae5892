/**
 * The policy bench/judge-overhead.ts judges: a hopper that stands for most of its 8 s episodes, so that a judgment
 * renders full-length episodes. Its greedy action is tanh(K · obs), a feedback law on the torso angle and the
 * joints, written into hexa's PPO MLP (the first layer passes the observation on, scaled into tanh's linear range).
 */
import { writeFileSync } from "node:fs";
import type { RewardTask } from "../levels/reward-search/task.ts";
import { policyLayout, serializePolicy } from "../levels/reward-search/trainer/policy.ts";

const K = [
  [0, 0, -1.3, 0, 0, 0, 0, -1.4, -0.1, 0, 0],
  [0, -0.7, 0, 1.6, 0, 0, 0, -1.8, 0, -0.1, 0],
  [0, -0.4, 0, 0, -2.2, 0, 0, -0.2, 0, 0, -0.1],
];
const HIDDEN = 16;

/** Writes the standing hopper policy as a policy file `hexa judge --policy` reads; returns its serialized policy. */
export const writeStandingHopper = (hopper: RewardTask, path: string): ReturnType<typeof serializePolicy> => {
  const layout = policyLayout({ obsDim: 11, action: { kind: "continuous", dim: 3, low: [-1, -1, -1], high: [1, 1, 1] }, hidden: HIDDEN, shared: false });
  const theta = new Float32Array(layout.size);
  const at = (name: string) => layout.params.find((q) => q.name === name)!.offset;
  const eps = 1e-3;
  for (let i = 0; i < 11; i++) theta[at("pi.w1") + i * HIDDEN + i] = eps;
  for (let j = 0; j < 3; j++) for (let i = 0; i < 11; i++) theta[at("pi.w2") + i * HIDDEN + j] = K[j]![i]! / eps;
  for (let j = 0; j < 3; j++) theta[at("pi.w3") + j * 3 + j] = 1;
  const policy = serializePolicy(layout, theta, null);
  writeFileSync(path, JSON.stringify({ task: "hopper", instance: hopper.generate(0), seed: 0, steps: 0, policy }));
  return policy;
};
