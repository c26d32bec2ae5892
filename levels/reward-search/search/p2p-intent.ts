/**
 * A task from words for the p2p strategy (docs/guides/prompt-to-policy.md): a MuJoCo environment of the family
 * and an intent. The reviser is shown the intent as the task's goal (the environment's own F stays, labelled as
 * shown for reference only); before any training the intent's code judge is found in the search directory or
 * authored there by llm.judge, and with llm.vision its criteria are fixed once: the user's (`--criteria`), or
 * asked from the first frame of the first judged seed (at a terminal, shown to the user, who accepts 5–10), so
 * every checkpoint is judged against the same ones.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../../src/errors.ts";
import { judgeForIntent } from "../cli/judge-author.ts";
import { episodeOf } from "../cli/judge-vision.ts";
import { saveJudge } from "../judging/judge-store.ts";
import { judgedFrames } from "../judging/vision-frames.ts";
import { storeUserCriteria, visionCriteria } from "../judging/vision-criteria.ts";
import { CHROMIUM, JUDGED_FRAME_FPS, JUDGED_FRAME_SIZE, renderEpisodeFrames } from "../pictures/episode-frames.ts";
import type { RewardTask, TaskInstance } from "../task.ts";
import { recordEpisode } from "../trajectory/recorder.ts";
import type { IntentJudging, IntentModels } from "./p2p-intent-judge.ts";
import type { Elicit } from "../cli/search-elicit.ts";

/** The task the reviser sees: the intent as its goal, the environment's description and F below it. */
export const intentTask = (task: RewardTask, intent: string): RewardTask => ({
  ...task,
  title: `${task.id}: ${intent.slice(0, 60)}`,
  description: [
    `The behaviour to learn, in the user's words: ${JSON.stringify(intent)}`,
    "Each checkpoint's policy is judged against these words from its recorded rollout (a code judge over the trajectory, and a vision judge over the rendered frames when one is configured); the judged score (0–1) is the search's score.",
    "",
    "The environment (its own goal below is not this search's goal):",
    task.description,
  ].join("\n"),
  fitness: {
    ...task.fitness,
    describe: `${task.fitness.describe} (the environment's own measure, shown for reference only: this search is judged against the behaviour in words, not F)`,
  },
});

/** The judged seeds: the instance's evaluation seeds first, then the next that are no training seed (as hexa judge picks them). */
export const intentSeeds = (instance: TaskInstance, n: number): number[] => {
  const seeds = instance.evalSeeds.slice(0, n);
  for (let s = Math.max(...instance.evalSeeds) + 1; seeds.length < n; s++) if (s % 8 !== 0) seeds.push(s);
  return seeds;
};

/** How the vision criteria are fixed: the user's list (--criteria, or accepted at a terminal before), or elicited now. */
export interface CriteriaChoice {
  /** The criteria the user gave or accepted earlier (search-config.json records them). */
  user?: readonly string[] | undefined;
  /** The user's list was accepted from the vision judge's proposal: the proposal is asked again (a replay answers it from the record). */
  elicited?: boolean | undefined;
  /** At a terminal with no list yet: shows the proposal and returns the list the user accepts. */
  elicit?: Elicit | undefined;
}

/** Where the proposal shown for elicitation is kept (apart from the criteria judged with), so a resume does not ask for it again. */
const PROPOSAL_DIR = "proposed-criteria";

/**
 * The vision criteria: the user's, stored for the scene note the episodes are judged with; else asked once from
 * the reset pose of the first judged seed (no policy has acted before the first frame), and at a terminal shown
 * to the user, whose accepted list is then stored as theirs (`accepted` says so, for search-config.json).
 */
const fixCriteria = async (task: RewardTask, instance: TaskInstance, j: IntentJudging, v: NonNullable<IntentModels["vision"]>, c: CriteriaChoice) => {
  const record = recordEpisode({ task, instance, seed: j.seeds[0]!, act: () => new Float64Array(task.actionNames.length), maxSteps: 1 });
  const episode = await episodeOf(record);
  const byUser = (criteria: readonly string[], source: string) => {
    const file = storeUserCriteria(j.dir, { intent: j.intent, context: episode.context }, v.model.model, criteria);
    return { criteria: [...criteria], source, file };
  };
  if (c.user && !c.elicited) return byUser(c.user, "given by the user");
  const asked = c.user || c.elicit;
  const frames = judgedFrames(await renderEpisodeFrames(episode.scene, record, { fps: JUDGED_FRAME_FPS, size: JUDGED_FRAME_SIZE, trail: false }));
  const request = { intent: j.intent, firstFrame: frames.frames[0]!, context: episode.context };
  if (!asked) return visionCriteria(v.model, request, { dir: j.dir });
  const proposal = await visionCriteria(v.model, request, { dir: join(j.dir, PROPOSAL_DIR) });
  if (c.user) return byUser(c.user, "accepted by the user from the vision judge's proposal");
  const accepted = await c.elicit!(proposal.criteria);
  return { ...byUser(accepted, "accepted by the user from the vision judge's proposal"), accepted };
};

/**
 * Before the first training: the code judge (stored for the intent in the search directory, else authored by
 * llm.judge and stored there) and the vision criteria; returns notes to print. A failed authoring stops here.
 */
export const prepareIntent = async (
  task: RewardTask,
  instance: TaskInstance,
  j: IntentJudging,
  m: IntentModels,
  criteria: CriteriaChoice = {},
): Promise<{ notes: string[]; judgeFile: string; accepted?: string[] }> => {
  if (!task.prepare) throw new ConfigError(`--env: ${task.id} is not a MuJoCo task; an intent is judged from recorded MuJoCo rollouts only`);
  await task.prepare();
  const judge = await judgeForIntent(task, j.intent, j.dir, async () => m.judge);
  // Its stored file (saving it again changes nothing): each checkpoint is judged with it as hexa judge --judge is.
  const judgeFile = saveJudge(j.dir, judge.judge);
  const notes = [judge.note];
  if (!m.vision) return { notes, judgeFile };
  if (!existsSync(CHROMIUM))
    return { notes: [...notes, `llm.vision: ${CHROMIUM} is missing (apt-get install -y chromium): no frames, so the code judge alone scores`], judgeFile };
  const c = await fixCriteria(task, instance, j, m.vision, criteria);
  return {
    ...("accepted" in c && c.accepted ? { accepted: c.accepted } : {}),
    notes: [...notes, `vision criteria (${c.source}${c.file ? `, ${c.file}` : ""}): ${c.criteria.map((x, i) => `${i + 1}. ${x}`).join(" ")}`],
    judgeFile,
  };
};
