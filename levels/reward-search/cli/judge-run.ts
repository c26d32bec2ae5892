/**
 * `hexa judge` without a model (docs/guides/judging.md, "hexa judge"): record N evaluation episodes of a policy
 * into the judgment folder, score each with a versioned code judge (sandboxed) or, with none, the fitness judge,
 * pick the p10 / median / p90 episodes by that score, and write judgment.json.
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ConfigError } from "../../../src/errors.ts";
import { writeAtomic } from "../../../src/util/write-atomic.ts";
import { synthesise } from "../judging/agreement.ts";
import { type Judge, judgeTrajectory } from "../judging/judge.ts";
import type { Judgment } from "../judging/judgment.ts";
import type { RewardTask, TaskInstance } from "../task.ts";
import type { TrajectoryRecord } from "../trajectory/record.ts";
import { recordEpisode } from "../trajectory/recorder.ts";
import { writeTrajectoryFile } from "../trajectory/trajectory-file.ts";
import { type AuthorSetup, judgeForIntent } from "./judge-author.ts";
import {
  type EpisodeScore,
  JUDGMENT_SCHEMA_VERSION,
  type JudgeUsed,
  type JudgmentFile as JudgmentFileT,
  JudgmentFile,
  type PickedEpisode,
  type PickName,
  PICKS,
} from "./judge-file.ts";
import { episodeFitness, FITNESS_LABEL, fitnessBase, fitnessScore } from "./judge-fitness.ts";
import { readJudgeInput, readPolicyInput } from "./judge-inputs.ts";
import type { VisionSetup } from "./judge-models.ts";
import { judgmentLines } from "./judge-print.ts";
import { visionPicks } from "./judge-vision.ts";

export interface JudgeRequest {
  task: string;
  policy: string;
  /** Episodes judged (judgedSeeds), unless `seeds` are given. */
  episodes: number;
  seeds?: readonly number[];
  judge?: string;
  intent?: string;
  /** The judgment folder (default: `judgment/` beside the policy). */
  out?: string;
  force?: boolean;
  maxSteps?: number;
  /** A judge model: with no --judge, the intent (default: the task's description) gets its stored or newly authored code judge. */
  author?: AuthorSetup;
  /** A vision model: each pick's frames are judged against the intent and synthesised with the code judge (judge-vision.ts). */
  vision?: VisionSetup;
  /** Where the vision judge's criteria are stored (default: the judgment folder). */
  criteriaDir?: string;
}

export interface JudgeOutcome {
  dir: string;
  file: JudgmentFileT;
  lines: string[];
}

/** Renders the picks' frames into the judgment folder; sets each pick's `frames`; returns notes. */
export type PickRenderer = (dir: string, picks: PickedEpisode[]) => Promise<string[]>;

/** The model roles judging an intent needs; without either hexa judge refuses an intent alone. */
const INTENT_ROLES = ["llm.judge", "llm.vision"] as const;

const intentRefusal = (intent: string): ConfigError =>
  new ConfigError(
    `--intent: judging the intent ${JSON.stringify(intent.slice(0, 80))} needs a model in the roles ${INTENT_ROLES[0]} (to write the code judge and settle disagreements) ` +
      `and/or ${INTENT_ROLES[1]} (to judge the frames), and this command uses none; give --judge-model (and --judge-base-url) to have ${INTENT_ROLES[0]} author a code judge, ` +
      `--vision-model (and --vision-base-url) for ${INTENT_ROLES[1]}, or either role in --config's llm; or --judge JUDGE.json (a versioned code judge), ` +
      "or leave out --intent to have the fitness judge score the task's F",
  );

/** Episodes judged per call at most (trajectory/record-policy.ts records as many). */
const MAX_EPISODES = 100;

/**
 * The seeds judged: given ones, or the instance's evaluation seeds followed by the next seeds that are no
 * instance's training seed (those are the multiples of 8: envs/vec-env.ts instanceSeeds), the first `n` of them.
 */
export const judgedSeeds = (r: Pick<JudgeRequest, "episodes" | "seeds">, instance: TaskInstance): number[] => {
  if (r.seeds && r.seeds.length > 0) {
    if (r.seeds.length > MAX_EPISODES) throw new ConfigError(`--seed: ${r.seeds.length} seeds; judge at most ${MAX_EPISODES} episodes`);
    if (new Set(r.seeds).size !== r.seeds.length) throw new ConfigError(`--seed: a seed is given twice (${r.seeds.join(", ")}); give each once`);
    return [...r.seeds];
  }
  if (!Number.isInteger(r.episodes) || r.episodes < 1 || r.episodes > MAX_EPISODES)
    throw new ConfigError(`--episodes: must be an integer in [1, ${MAX_EPISODES}] (got ${r.episodes})`);
  const seeds = instance.evalSeeds.slice(0, r.episodes);
  for (let s = Math.max(...instance.evalSeeds) + 1; seeds.length < r.episodes; s++) if (s % 8 !== 0) seeds.push(s);
  return seeds;
};

/** The judgment folder, made if missing; an existing judgment.json is kept unless `force`. */
const judgmentDir = (r: JudgeRequest): string => {
  const dir = resolve(r.out ?? join(dirname(resolve(r.policy)), "judgment"));
  if (existsSync(join(dir, "judgment.json")) && !r.force)
    throw new ConfigError(`--out: ${dir} already holds a judgment.json; give --force to replace it, or another --out`);
  mkdirSync(dir, { recursive: true });
  return dir;
};

/**
 * The p10 / median / p90 episodes: nearest rank over the episodes sorted by score, ties by F (a clamped fitness
 * score ties every episode below its base), then by seed.
 */
export const pickEpisodes = (scores: readonly { seed: number; score: number; fitness: number }[]): Record<PickName, number> => {
  const sorted = [...scores].sort((a, b) => a.score - b.score || a.fitness - b.fitness || a.seed - b.seed);
  const at = (q: number) => sorted[Math.round(q * (sorted.length - 1))]!.seed;
  return { p10: at(0.1), median: at(0.5), p90: at(0.9) };
};

export interface Scored {
  episode: EpisodeScore;
  judgment?: Judgment;
}

type PolicyInput = ReturnType<typeof readPolicyInput>;

export const judgeUsed = (task: RewardTask, judge: Judge | null): JudgeUsed =>
  judge
    ? { kind: "code", id: judge.id, version: judge.version, hash: judge.hash, label: `code judge ${judge.id} v${judge.version}` }
    : { kind: "fitness", label: FITNESS_LABEL, solved: task.fitness.solved, base: fitnessBase(task.fitness) };

async function scoreEpisodes(r: JudgeRequest, task: RewardTask, policy: PolicyInput, dir: string, judge: Judge | null): Promise<Scored[]> {
  const out: Scored[] = [];
  for (const seed of judgedSeeds(r, policy.instance)) {
    const act = (obs: Float64Array) => policy.loaded.act(obs, 1);
    const record = recordEpisode({ task, instance: policy.instance, seed, act, ...(r.maxSteps ? { maxSteps: r.maxSteps } : {}) });
    writeTrajectoryFile(join(dir, trajectoryName(seed)), record);
    out.push(await scoreRecord(task, judge, seed, record));
  }
  return out;
}

/** The file name of episode `seed`'s trajectory in the judgment folder. */
export const trajectoryName = (seed: number): string => `trajectory-${seed}.bin`;

/** One recorded episode scored by the code judge, or by the fitness judge when there is none. */
export async function scoreRecord(task: RewardTask, judge: Judge | null, seed: number, record: TrajectoryRecord): Promise<Scored> {
  const trajectory = trajectoryName(seed);
  const base = { seed, trajectory, steps: record.steps, fitness: episodeFitness(record) };
  if (!judge) return { episode: { ...base, score: fitnessScore(base.fitness, task.fitness) } };
  const judgment = await judgeTrajectory(judge, trajectory, record);
  const fault = judgment.fault ? { fault: `${judgment.fault.tag}: ${judgment.fault.message}` } : {};
  return { episode: { ...base, score: judgment.score, ...fault }, judgment };
}

/** judgment.json's bytes: what hexa judge writes and hexa verify compares. */
export const judgmentText = (file: JudgmentFileT): string => `${JSON.stringify(file, null, 2)}\n`;

const f3 = (x: number) => x.toFixed(3);

/** One judge alone: its score stands (judging/agreement.ts); the fitness judge passes where F reaches solved. */
const synthesisOf = (used: JudgeUsed, s: Scored): PickedEpisode["synthesis"] => {
  if (used.kind === "code") {
    const v = synthesise({ code: s.episode.score });
    if (v.kind !== "single") throw new ConfigError(`judge: the code judge's score ${s.episode.score} was not usable (${v.rule})`);
    return { kind: "single", judge: "code", score: v.score, passed: v.passed, rule: v.rule };
  }
  const passed = s.episode.fitness >= used.solved;
  const side = passed ? "at or above" : "below";
  const rule = `fitness judge alone: its score ${f3(s.episode.score)} stands; F ${f3(s.episode.fitness)} is ${side} the solved threshold ${used.solved}`;
  return { kind: "single", judge: "fitness", score: s.episode.score, passed, rule };
};

export const picksOf = (used: JudgeUsed, scored: Scored[]): PickedEpisode[] => {
  const chosen = pickEpisodes(scored.map((s) => s.episode));
  return PICKS.map((pick) => {
    const s = scored.find((x) => x.episode.seed === chosen[pick])!;
    return { pick, seed: s.episode.seed, score: s.episode.score, synthesis: synthesisOf(used, s), ...(s.judgment ? { judgment: s.judgment } : {}) };
  });
};

/** The policy's network must read the task's observations and give its actions. */
const checkShape = (path: string, policy: PolicyInput, task: RewardTask): void => {
  const probe = task.makeEnv(policy.instance, 1);
  probe.close?.();
  const outputs = probe.action.kind === "continuous" ? probe.action.dim : probe.action.n;
  const l = policy.loaded.layout;
  if (l.obsDim !== probe.obsDim || l.outDim !== outputs)
    throw new ConfigError(
      `--policy: ${path}: policy.obsDim: the policy reads ${l.obsDim} observation values and gives ${l.outDim} outputs but ${task.id} has ${probe.obsDim} and ${outputs}`,
    );
};

/** The judge file, checked against --intent: an intent alone needs a model; one that differs from the judge's is refused. */
const judgeOf = (r: JudgeRequest): Judge | null => {
  const judge = r.judge === undefined ? null : readJudgeInput(r.judge);
  if (!judge && r.intent !== undefined && !r.author && !r.vision) throw intentRefusal(r.intent);
  if (judge && r.intent !== undefined && r.intent !== judge.intent)
    throw new ConfigError(
      `--intent: differs from the intent of judge ${judge.id} v${judge.version} (${JSON.stringify(judge.intent.slice(0, 80))}); leave it out or give that judge's intent`,
    );
  return judge;
};

const taskFor = async (r: JudgeRequest, policy: PolicyInput): Promise<RewardTask> => {
  const { loadTask } = await import("../tasks/index.ts");
  const task = await loadTask(r.task);
  if (!task.prepare) throw new ConfigError(`--task: ${task.id} is not a MuJoCo task; episodes are recorded and judged for the MuJoCo tasks only`);
  if (policy.task !== task.id) throw new ConfigError(`--policy: ${r.policy} was trained on ${policy.task}, not ${task.id}; give a ${task.id} policy`);
  await task.prepare();
  checkShape(r.policy, policy, task);
  return task;
};

/** The judge model's code judge for the request's intent, or the task's description when none is given. */
const authoredFor = (r: JudgeRequest, a: AuthorSetup, task: RewardTask, dir: string) =>
  judgeForIntent(task, r.intent ?? task.description, a.store ?? dir, () => a.model(dir));

/** The vision judge over the picks, synthesised with the code judge by the judge model where there is one. */
async function visionOf(r: JudgeRequest, setup: VisionSetup, intent: string, dir: string, picks: PickedEpisode[]) {
  const { model, limits } = await setup.model(dir);
  const author = r.author;
  const judgeModel = author ? () => author.model(dir) : undefined;
  const criteria = r.criteriaDir === undefined ? {} : { criteriaDir: r.criteriaDir };
  const corrections = setup.corrections ? { corrections: setup.corrections } : {};
  const step = { intent, model, limits, trail: setup.trail, ...(judgeModel ? { judgeModel } : {}), ...criteria, ...corrections };
  const notes = await visionPicks(dir, step, picks);
  const label = `vision judge ${model.model}${setup.trail ? " (frames and motion trail)" : ""}`;
  return { used: { model: model.model, trail: setup.trail, maxImages: limits.maxImages, video: limits.video, label, ...corrections }, notes };
}

/** Judge a policy's evaluation episodes without a model (or with a judge model that authors the code judge); the judgment is written to `<dir>/judgment.json`. */
export async function judgePolicy(r: JudgeRequest, renderPicks?: PickRenderer): Promise<JudgeOutcome> {
  const given = judgeOf(r);
  const policy = readPolicyInput(r.policy);
  const task = await taskFor(r, policy);
  const dir = judgmentDir(r);
  const authored = !given && r.author ? await authoredFor(r, r.author, task, dir) : null;
  const judge = given ?? authored?.judge ?? null;
  const used = judgeUsed(task, judge);
  const scored = await scoreEpisodes(r, task, policy, dir, judge);
  const picks = picksOf(used, scored);
  const intent = judge ? judge.intent : r.vision ? (r.intent ?? task.description) : null;
  const vision = r.vision && intent !== null ? await visionOf(r, r.vision, intent, dir, picks) : null;
  const rendered = renderPicks && !vision ? await renderPicks(dir, picks) : [];
  const notes = [...(authored ? [authored.note] : []), ...(vision?.notes ?? []), ...rendered];
  const file = JudgmentFile.parse({
    schemaVersion: JUDGMENT_SCHEMA_VERSION,
    task: task.id,
    policy: resolve(r.policy),
    intent,
    judge: used,
    ...(vision ? { vision: vision.used } : {}),
    episodes: scored.map((s) => s.episode),
    picks,
    notes,
  });
  writeAtomic(join(dir, "judgment.json"), judgmentText(file));
  return { dir, file, lines: judgmentLines(file) };
}
