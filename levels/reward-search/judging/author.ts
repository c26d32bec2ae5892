/**
 * A code judge authored by a model from an intent (docs/guides/judging.md, "Authoring a code judge"), with
 * Prompt-to-Policy's protocol: decompose the intent into a criteria tree, self-review it (≤ 5 rounds), implement
 * the leaves' measurements and validate them on a real 5-step random-action episode (≤ 5 tries), review the code
 * for loopholes (≤ 5 rounds). The result is stored as a new version in the judge store with a summary of the
 * authoring. Nothing the model does crashes it: every failure ends in an outcome labelled with its stage.
 */
import { InvariantError, RunStopped } from "../../../src/errors.ts";
import type { RoleModel } from "../../../src/llm/ask.ts";
import type { JudgeLimits } from "../sandbox/judge-sandbox.ts";
import type { RewardTask, TaskInstance } from "../task.ts";
import { AuthorConversation } from "./author-conversation.ts";
import { AUTHORING_CAPS, decomposeIntent, newRounds } from "./author-decompose.ts";
import { type AuthoringStage, AuthoringStageFailed } from "./author-failure.ts";
import { implementLeaves } from "./author-implement.ts";
import { systemPrompt } from "./author-prompts.ts";
import { reviewLoopholes } from "./author-review.ts";
import { type AuthoringSummary, authoredJudgeId, latestJudgeVersion, saveAuthoringSummary } from "./author-store.ts";
import { randomRollout, type Sample } from "./author-validate.ts";
import { type Judge, makeJudge, reviseJudge } from "./judge.ts";
import { loadJudge, saveJudge } from "./judge-store.ts";

export interface AuthorRequest {
  /** The judge role's model (`llm.judge`, src/llm/role-model.ts). */
  model: RoleModel;
  intent: string;
  /** The MuJoCo task whose episodes the judge reads; prepared here. */
  task: RewardTask;
  /** The instance of the validation episode (default: the task's instance 0). */
  instance?: TaskInstance;
  /** Seed of the validation episode's reset and random actions (default 0). */
  seed?: number;
  /** The judge store's folder (judge-store.ts). */
  store: string;
  limits?: Partial<JudgeLimits>;
  /** The user's corrections the judge must take into account (correctionsForJudges' text; a p2p search's), recorded in the summary. */
  corrections?: string | undefined;
}

export type AuthoringOutcome =
  | { ok: true; judge: Judge; path: string; summary: AuthoringSummary }
  | { ok: false; stage: AuthoringStage; label: string; summary: AuthoringSummary };

const MAX_INTENT = 4000;

/** Author a code judge for `r.intent`; never throws for what the model does (a spend cap's RunStopped passes through). */
export async function authorJudge(r: AuthorRequest): Promise<AuthoringOutcome> {
  const summary: AuthoringSummary = {
    schemaVersion: 1,
    intent: r.intent,
    task: r.task.id,
    model: r.model.model,
    label: "",
    judge: null,
    sample: null,
    review: newRounds(AUTHORING_CAPS.reviews),
    implement: newRounds(AUTHORING_CAPS.tries),
    loophole: newRounds(AUTHORING_CAPS.loopholes),
    calls: [],
    ...(r.corrections ? { corrections: r.corrections } : {}),
  };
  const at: { stage: AuthoringStage } = { stage: "intent" };
  let conversation: AuthorConversation | undefined;
  try {
    if (r.intent.trim().length === 0 || r.intent.length > MAX_INTENT)
      throw new AuthoringStageFailed("intent", `the intent must be 1 to ${MAX_INTENT} characters (got ${r.intent.length}); give a shorter intent`);
    at.stage = "sample";
    const sample = await sampleOf(r);
    summary.sample = { task: sample.task, seed: sample.seed, steps: sample.steps };
    conversation = new AuthorConversation(
      r.model,
      systemPrompt(r.intent, { header: sample.record.header, episodeSteps: r.task.maxEpisodeSteps, description: r.task.description }, r.corrections),
    );
    at.stage = "decompose";
    const tree = await decomposeIntent(conversation, r.intent, summary.review);
    at.stage = "implement";
    const implemented = await implementLeaves(conversation, tree, sample, summary.implement, r.limits);
    at.stage = "loophole review";
    const code = await reviewLoopholes(conversation, { intent: r.intent, tree, code: implemented, sample }, summary.loophole, r.limits);
    at.stage = "store";
    summary.calls = conversation.calls;
    return stored(r, { intent: r.intent, tree, code }, summary);
  } catch (e) {
    if (e instanceof RunStopped || e instanceof InvariantError) throw e;
    summary.calls = conversation?.calls ?? [];
    const stage = e instanceof AuthoringStageFailed ? e.stage : at.stage;
    const detail = e instanceof AuthoringStageFailed ? e.detail : `${e instanceof Error ? e.name : "Error"}: ${e instanceof Error ? e.message : String(e)}`;
    summary.label = `authoring failed at ${stage}: ${detail.slice(0, 600)}`;
    return { ok: false, stage, label: summary.label, summary };
  }
}

async function sampleOf(r: AuthorRequest): Promise<Sample> {
  await r.task.prepare?.();
  return randomRollout(r.task, r.instance ?? r.task.generate(0), r.seed ?? 0);
}

/** The authored judge as the next version of its id (version 1 when none is stored), stored with its summary. */
function stored(r: AuthorRequest, content: Pick<Judge, "intent" | "tree" | "code">, summary: AuthoringSummary): AuthoringOutcome {
  const id = authoredJudgeId(r.task.id, r.intent);
  const latest = latestJudgeVersion(r.store, id);
  const judge = latest === null ? makeJudge(id, content) : reviseJudge(loadJudge(r.store, id, latest), content);
  const path = saveJudge(r.store, judge);
  summary.judge = { id: judge.id, version: judge.version, hash: judge.hash };
  summary.label = `authored judge ${judge.id} v${judge.version}: decomposition reviewed ${summary.review.rounds} round(s) (${summary.review.stopped}), implemented in ${summary.implement.rounds} tr${summary.implement.rounds === 1 ? "y" : "ies"}, loophole review ${summary.loophole.rounds} round(s) (${summary.loophole.stopped})`;
  saveAuthoringSummary(r.store, judge, summary);
  return { ok: true, judge, path, summary };
}
