/**
 * Which version of an intent's code judge judges an iteration of a p2p search (docs/spec/reward-search.md §8.6):
 * the stored version authored with exactly the corrections the iteration weighs (none: the version authored before
 * the search). When none was, llm.judge authors the next version with them (judges/<id>/v<n>.json, its
 * authoring summary recording the corrections), at most once per iteration; a failed authoring leaves the latest
 * stored version judging, said in a note. A resumed search finds the versions already stored and never authors
 * one again; a replay (hexa verify) authors them anew in its own folder, answered from llm-log.jsonl.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { InvariantError } from "../../../src/errors.ts";
import type { RoleModel } from "../../../src/llm/ask.ts";
import { authorJudge } from "../judging/author.ts";
import { AuthoringSummary, authoredJudgeId, latestJudgeVersion } from "../judging/author-store.ts";
import type { RewardTask } from "../task.ts";

/** Bytes of an authoring summary read back, at most (it holds an intent, corrections and a list of calls). */
const MAX_SUMMARY_BYTES = 1 << 20;

const versionFile = (dir: string, id: string, version: number, suffix: string) => join(dir, "judges", id, `v${version}${suffix}`);

/** The corrections a stored version was authored with ("" without a summary or without corrections); null for a summary that is not one. */
const authoredCorrections = (dir: string, id: string, version: number): string | null => {
  const path = versionFile(dir, id, version, ".authoring.json");
  if (!existsSync(path)) return "";
  if (statSync(path).size > MAX_SUMMARY_BYTES) return null;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
  const r = AuthoringSummary.safeParse(value);
  return r.success && r.data.judge?.version === version ? (r.data.corrections ?? "") : null;
};

/** The latest stored version of judge `id` authored with exactly `corrections`, or null. */
export const versionAuthoredWith = (dir: string, id: string, corrections: string): number | null => {
  for (let v = latestJudgeVersion(dir, id) ?? 0; v >= 1; v--) if (authoredCorrections(dir, id, v) === corrections) return v;
  return null;
};

export interface CodeJudgeVersion {
  /** The judge file the iteration's checkpoints are judged with. */
  file: string;
  version: number;
  /** Said once, where a version was authored now or an authoring failed. */
  note?: string;
}

/** The versions of the intent's code judge in a search directory, authored with the corrections as iterations need them. */
export const codeJudgeVersions = (task: RewardTask, intent: string, dir: string, model: RoleModel) => {
  const id = authoredJudgeId(task.id, intent);
  const tried = new Set<number>();
  const latest = (): number => {
    const v = latestJudgeVersion(dir, id);
    if (v === null) throw new InvariantError(`p2p: no code judge ${id} is stored in ${dir}; it is authored before the search`);
    return v;
  };
  const at = (version: number, note?: string): CodeJudgeVersion => ({ file: versionFile(dir, id, version, ".json"), version, ...(note ? { note } : {}) });
  /** The version judging iteration `iteration`, whose judges weigh `corrections` (correctionsForJudges' text). */
  return async (iteration: number, corrections: string): Promise<CodeJudgeVersion> => {
    const found = versionAuthoredWith(dir, id, corrections);
    if (found !== null) return at(found);
    if (tried.has(iteration)) return at(latest());
    tried.add(iteration);
    const out = await authorJudge({ model, intent, task, store: dir, ...(corrections ? { corrections } : {}) });
    if (out.ok) return at(out.judge.version, `iteration ${iteration}: ${out.summary.label}, with the user's corrections; it judges from here on`);
    const kept = latest();
    return at(kept, `iteration ${iteration}: the code judge was not authored again with the user's corrections (${out.label}); v${kept} judges on`);
  };
};
