import { dirname, join } from "node:path";
import { ConfigError } from "../../../src/errors.ts";
import { readPolicyFile } from "../pictures/rollout-gif.ts";
import { loadTask } from "../tasks/index.ts";
import { loadPolicy } from "../trainer/policy.ts";
import { recordEpisode } from "./recorder.ts";
import { writeTrajectoryFile } from "./trajectory-file.ts";

/**
 * Evaluation episodes of a saved policy, recorded beside it (docs/spec/trajectory.md): a training job's
 * policy.json (trainer/main.ts writes it in the job's folder) gets one `trajectory-<seed>.bin` per seed in
 * that folder, each the greedy episode the trainer's evaluation plays on that seed.
 */

/** Episodes recorded per call at most (an Ant episode takes ~3.3 MB). */
const MAX_RECORDED_EPISODES = 100;

export interface RecordedEpisode {
  seed: number;
  path: string;
  steps: number;
}

const checkSeeds = (seeds: readonly number[], where: string): void => {
  if (seeds.length < 1 || seeds.length > MAX_RECORDED_EPISODES)
    throw new ConfigError(`${where}: seeds: ${seeds.length} seeds; record 1 to ${MAX_RECORDED_EPISODES} episodes per call`);
  const bad = seeds.find((s) => !Number.isSafeInteger(s) || s < 0);
  if (bad !== undefined) throw new ConfigError(`${where}: seeds: ${bad} is not an integer ≥ 0; give evaluation seeds`);
  if (new Set(seeds).size !== seeds.length) throw new ConfigError(`${where}: seeds: a seed is given twice (got ${seeds.join(", ")}); give each once`);
};

/** Record the policy's episodes on `seeds` (default: its instance's evaluation seeds) into the policy's folder. */
export const recordPolicyEpisodes = async (policyPath: string, seeds?: readonly number[]): Promise<RecordedEpisode[]> => {
  const file = readPolicyFile(policyPath);
  const chosen = seeds ?? file.instance.evalSeeds;
  checkSeeds(chosen, policyPath);
  const task = await loadTask(file.task);
  const policy = loadPolicy(file.policy);
  const probe = task.makeEnv(file.instance, 1);
  probe.close?.();
  const outputs = probe.action.kind === "continuous" ? probe.action.dim : probe.action.n;
  if (policy.layout.obsDim !== probe.obsDim || policy.layout.outDim !== outputs)
    throw new ConfigError(
      `${policyPath}: the policy reads ${policy.layout.obsDim} observation values and gives ${policy.layout.outDim} outputs but ${task.id} has ${probe.obsDim} and ${outputs}; give a policy trained on ${task.id}`,
    );
  return chosen.map((seed) => {
    const record = recordEpisode({ task, instance: file.instance, seed, act: (obs) => policy.act(obs, 1) });
    const path = join(dirname(policyPath), `trajectory-${seed}.bin`);
    writeTrajectoryFile(path, record);
    return { seed, path, steps: record.steps };
  });
};
