/**
 * `hexa judge` with a judge model (docs/guides/judging.md, "Authoring a code judge"): the code judge for an intent
 * is the one stored for it in the judge store, or, when none is, one the model authors now and stores there.
 */
import { ModelOutputError } from "../../../src/errors.ts";
import type { RoleModel } from "../../../src/llm/ask.ts";
import { authoredJudgeId, storedJudgeFor } from "../judging/author-store.ts";
import { authorJudge } from "../judging/author.ts";
import type { Judge } from "../judging/judge.ts";
import type { RewardTask } from "../task.ts";

/** The judge model's part of a request: where judges are stored, and the model (its log written in the judgment folder). */
export interface AuthorSetup {
  /** The judge store (default: the judgment folder, whose `judges/` then holds the authored judges). */
  store?: string;
  model: (judgmentDir: string) => Promise<RoleModel>;
}

/** The stored judge for `intent` on `task`, else a newly authored one; a failed authoring is a ModelOutputError with its label. */
export async function judgeForIntent(
  task: RewardTask,
  intent: string,
  store: string,
  model: () => Promise<RoleModel>,
): Promise<{ judge: Judge; note: string }> {
  const found = storedJudgeFor(store, task.id, intent);
  if (found) return { judge: found, note: `code judge ${found.id} v${found.version} was stored for this intent in ${store}; not authored again` };
  const out = await authorJudge({ model: await model(), intent, task, store });
  if (!out.ok)
    throw new ModelOutputError(`llm.judge: ${out.label}; nothing was judged (the judge store ${store} keeps no judge ${authoredJudgeId(task.id, intent)})`);
  return { judge: out.judge, note: out.summary.label };
}
