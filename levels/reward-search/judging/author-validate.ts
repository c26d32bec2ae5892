/**
 * The check an authored judge's code must pass before it is kept (docs/guides/judging.md, "Authoring a code
 * judge"): it runs in the judge sandbox on a real recorded episode of the env (5 steps of seeded random actions)
 * and returns exactly one usable result per leaf of the tree. The error text goes back to the model.
 */
import { createRng } from "../../../src/util/rng.ts";
import { type JudgeLimits, runJudgeCode } from "../sandbox/judge-sandbox.ts";
import type { RewardTask, TaskInstance } from "../task.ts";
import type { TrajectoryRecord } from "../trajectory/record.ts";
import { recordEpisode } from "../trajectory/recorder.ts";
import { MAX_AUTHORED_CODE } from "./author-answers.ts";
import type { CriteriaTree } from "./criteria.ts";
import { scoreTree } from "./tree-score.ts";

/** Steps of the validation episode (Prompt-to-Policy's sample trajectory). */
const SAMPLE_STEPS = 5;

/** The episode an authored judge is validated on, and what it was. */
export interface Sample {
  record: TrajectoryRecord;
  task: string;
  seed: number;
  steps: number;
}

/** A real episode of `task`: reset with `seed`, then uniform random actions in [-1, 1] from an Rng of the same seed. */
export const randomRollout = (task: RewardTask, instance: TaskInstance, seed: number, steps = SAMPLE_STEPS): Sample => {
  const probe = task.makeEnv(instance, 1);
  probe.close?.();
  const width = probe.action.kind === "continuous" ? probe.action.dim : 1;
  const rng = createRng(seed);
  const act = () => Float64Array.from({ length: width }, () => rng.uniform(-1, 1));
  const record = recordEpisode({ task, instance, seed, act, maxSteps: steps });
  return { record, task: task.id, seed, steps: record.steps };
};

const LEAF_FAULTS = new Set(["missing", "duplicate", "nan", "range", "shape", "inconsistent"]);

/** null when the code runs and gives one usable result per leaf; else what is wrong, in words for the model. */
export async function validateJudgeCode(code: string, tree: CriteriaTree, sample: Sample, limits?: Partial<JudgeLimits>): Promise<string | null> {
  if (code.length > MAX_AUTHORED_CODE) return `the code is ${code.length} characters, more than ${MAX_AUTHORED_CODE}; write shorter code`;
  const run = await runJudgeCode(code, sample.record, limits);
  if (!run.ok) return `${run.fault.tag}: ${run.fault.message}`;
  const scored = scoreTree(tree, run.results);
  const bad = scored.nodes.flatMap((n) => {
    const tags = n.leaf?.result.tags.filter((t) => LEAF_FAULTS.has(t)) ?? [];
    return tags.length ? [`leaf ${n.id}: ${tags.join(", ")} (${n.leaf!.result.note || "no note"})`] : [];
  });
  const extras = scored.extras.map((x) => `result id ${JSON.stringify(x.id)}: ${x.note}`);
  const problems = [...bad, ...extras];
  if (problems.length === 0) return null;
  return `${problems.slice(0, 8).join("; ")}${problems.length > 8 ? `; and ${problems.length - 8} more` : ""}. Tags: missing = no result for the leaf, duplicate = two results, nan = score not finite, range = score outside [0, 1], shape = score not a number or passed not true/false, inconsistent = passed is not (score === 1)`;
}
