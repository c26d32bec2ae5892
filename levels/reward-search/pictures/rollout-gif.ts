import { readFileSync, statSync } from "node:fs";
import { ConfigError } from "../../../src/errors.ts";
import { TaskInstance } from "../task.ts";
import { loadTask } from "../tasks/index.ts";
import { loadPolicy, type SerializedPolicy } from "../trainer/policy.ts";
import { filmToGif } from "./film-gif.ts";
import { filmMujoco } from "./mujoco-film.ts";

/**
 * A trained policy's rollout on its MuJoCo task as GIF bytes (docs/spec/reward-search.md §2, pictures): what
 * `hexa film` writes and `hexa inspect` shows. The policy is greedy (mean actions), on the first evaluation
 * seed of the instance it was trained on.
 */

/** A trainer job's policy.json (trainer/main.ts writes it). */
export interface PolicyFile {
  task: string;
  instance: TaskInstance;
  policy: SerializedPolicy;
}

/** More than any policy hexa's trainer writes (a 4096-wide network's parameters in base64 stay far below it). */
const MAX_POLICY_BYTES = 64 << 20;

/** A policy.json from anywhere (docs/security.md): its size is checked before it is read, then its fields. */
export const readPolicyFile = (path: string): PolicyFile => {
  let raw: unknown;
  try {
    const size = statSync(path).size;
    if (size > MAX_POLICY_BYTES) throw new ConfigError(`${path}: ${size} bytes, more than ${MAX_POLICY_BYTES}; not a training job's policy.json`);
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new ConfigError(`${path}: cannot read the policy file (${(e as Error).message}); give the policy.json of a training job`);
  }
  const p = raw as Partial<PolicyFile>;
  const instance = TaskInstance.safeParse(p?.instance);
  if (typeof p?.task !== "string" || !instance.success || p.policy?.format !== "hexa-ppo-mlp")
    throw new ConfigError(`${path}: not a training job's policy.json (needs task, instance and a hexa-ppo-mlp policy)`);
  return { task: p.task, instance: instance.data, policy: p.policy };
};

export interface RolloutGif {
  bytes: Uint8Array;
  frames: number;
  /** F of the filmed episode and its length in env steps. */
  fitness: number;
  steps: number;
}

export interface RolloutGifRequest {
  task: string;
  instance?: TaskInstance;
  /** null: every action 0 (the body under gravity alone). */
  policy: SerializedPolicy | null;
  seed?: number;
  stepsPerFrame?: number;
  width?: number;
}

export const rolloutGif = async (r: RolloutGifRequest): Promise<RolloutGif> => {
  const task = await loadTask(r.task);
  const instance = r.instance ?? task.generate(0);
  const loaded = r.policy ? loadPolicy(r.policy) : null;
  const probe = task.makeEnv(instance, 1);
  const zeros = probe.action.kind === "continuous" ? new Float64Array(probe.action.dim) : new Int32Array(1);
  probe.close?.();
  if (loaded && loaded.layout.obsDim !== probe.obsDim)
    throw new ConfigError(
      `the policy reads ${loaded.layout.obsDim} observation values but ${task.id} gives ${probe.obsDim}; give a policy trained on ${task.id}`,
    );
  const film = filmMujoco({
    task,
    instance,
    act: loaded ? (obs) => loaded.act(obs, 1) : () => zeros,
    seed: r.seed ?? instance.evalSeeds[0]!,
    stepsPerFrame: r.stepsPerFrame ?? 4,
  });
  const gif = filmToGif(film, { width: r.width ?? 240, holdLastMs: 1000 });
  return { bytes: gif.bytes, frames: gif.frames, fitness: film.fitness, steps: film.steps };
};
