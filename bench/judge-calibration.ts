/**
 * Judge calibration (docs/benchmarks/judge-calibration.md): policies of known quality (zero and random actions,
 * PPO with the task's reward at two budgets, PPO with a hacked reward; bench/judge-calibration-policies.ts) on
 * MuJoCo tasks with a known F are judged against the task's own description as the intent, by each judge in the
 * list (bench/judge-calibration-judges.ts: the fitness judge as the reference, the code judge, the vision judge
 * over rendered frames, bench/judge-calibration-vision.ts) and by the synthesis, each `--repeats` times (fixed
 * before the run). The raw
 * per-episode verdicts go to docs/benchmarks/data/judge-calibration.json and the page is rendered from them
 * (bench/judge-calibration-page.ts): Spearman's ρ with F, agreement with F's solved verdict, spread over repeats.
 *
 * Without --judge-model the code judges are authored, and disagreements settled, by a scripted model
 * (bench/judge-calibration-fixture.ts); without --vision-model the vision judge talks to a scripted vision server
 * started here (bench/judge-calibration-vision-model.ts). The vision judge needs /usr/bin/chromium.
 *
 *   npm run bench:judge-calibration -- [--tasks hopper,half_cheetah,inverted_pendulum] [--episodes 3] [--repeats 3]
 *        [--scale 1] [--seed 0] [--out bench/out/judge-calibration] [--judge-model M --judge-base-url URL]
 *        [--vision-model M --vision-base-url URL] [--vision-max-images 50] [--write-page]
 */
import { existsSync, mkdirSync } from "node:fs";
import os from "node:os";
import { join, relative, resolve } from "node:path";
import type { RoleModel } from "../src/llm/ask.ts";
import { DEFAULT_MAX_IMAGES } from "../src/llm/config.ts";
import { CHROMIUM } from "../levels/reward-search/pictures/episode-frames.ts";
import { episodeFitness } from "../levels/reward-search/cli/judge-fitness.ts";
import { judgedSeeds } from "../levels/reward-search/cli/judge-run.ts";
import { loadTask } from "../levels/reward-search/tasks/index.ts";
import type { RewardTask } from "../levels/reward-search/task.ts";
import type { TrajectoryRecord } from "../levels/reward-search/trajectory/record.ts";
import { recordEpisode } from "../levels/reward-search/trajectory/recorder.ts";
import { writeDataPage } from "./data-pages.ts";
import { failFlag, intFlag, listFlag, parseFlags } from "./flags.ts";
import { SCRIPTED_MODEL, scriptedJudgeModel } from "./judge-calibration-fixture.ts";
import { type CalibrationJudge, codeJudge, fitnessJudge, type JudgedEpisode, PASS_THRESHOLD, synthesisOf, visionNotRun } from "./judge-calibration-judges.ts";
import { CalibrationData, type EpisodeVerdict, renderCalibrationPage } from "./judge-calibration-page.ts";
import { SCRIPTED_SYNTHESIS_RULE } from "./judge-calibration-synthesiser.ts";
import { type VisionWork, visionJudge } from "./judge-calibration-vision.ts";
import { SCRIPTED_VISION_MODEL, SCRIPTED_VISION_RULE, startScriptedVision } from "./judge-calibration-vision-model.ts";
import { CALIBRATION_TASKS, policyActor, policySpecs, type PolicySpec } from "./judge-calibration-policies.ts";
import { commandLine, gitCommit, machineInfo, ROOT, WRITE_PAGE_FLAG } from "./page.ts";
import { BENCH_PAGES } from "./pages.ts";

const SCRIPT = "bench/judge-calibration.ts";
const flags = parseFlags(SCRIPT, {
  tasks: CALIBRATION_TASKS.join(","),
  episodes: "3",
  repeats: "3",
  scale: "1",
  seed: "0",
  resamples: "2000",
  out: join("bench", "out", "judge-calibration"),
  "judge-model": "",
  "judge-base-url": "",
  "vision-model": "",
  "vision-base-url": "",
  "vision-max-images": String(DEFAULT_MAX_IMAGES),
});
const TASKS = listFlag(SCRIPT, "tasks", flags.tasks, CALIBRATION_TASKS);
const EPISODES = intFlag(SCRIPT, "episodes", flags.episodes);
const REPEATS = intFlag(SCRIPT, "repeats", flags.repeats);
const SCALE = intFlag(SCRIPT, "scale", flags.scale);
const SEED = intFlag(SCRIPT, "seed", flags.seed, 0);
const RESAMPLES = intFlag(SCRIPT, "resamples", flags.resamples);
const OUT = resolve(ROOT, flags.out);
const JUDGE_MODEL = flags["judge-model"];
const JUDGE_URL = flags["judge-base-url"];
if (JUDGE_URL && !JUDGE_MODEL) failFlag(`${SCRIPT}: --judge-base-url needs --judge-model`);
const VISION_MODEL = flags["vision-model"];
const VISION_URL = flags["vision-base-url"];
const MAX_IMAGES = intFlag(SCRIPT, "vision-max-images", flags["vision-max-images"]);
if (VISION_URL && !VISION_MODEL) failFlag(`${SCRIPT}: --vision-base-url needs --vision-model`);
const RERUN =
  "npm run bench:judge-calibration -- --judge-model MODEL --judge-base-url URL --vision-model VLM --vision-base-url URL --vision-max-images N --write-page";

const started = new Date().toISOString();
const loadStart = os.loadavg();
/** The commit of the code that runs, read before it runs (an edit made meanwhile does not change what ran). */
const commit = gitCommit();
mkdirSync(OUT, { recursive: true });

/** A role's model at an endpoint; a real model's exchanges are logged to the bench folder's llm-log.jsonl. */
const endpointModel = async (role: "judge" | "vision", slice: Record<string, unknown>, logged: boolean): Promise<RoleModel> => {
  const [{ LlmConfig }, { createRoleModel }] = await Promise.all([import("../src/llm/config.ts"), import("../src/llm/role-model.ts")]);
  const llm = LlmConfig.parse({ [role]: slice, ...(logged ? { auditLog: join(OUT, "llm-log.jsonl") } : {}) });
  return createRoleModel(role, llm, { env: process.env, onNotice: (m) => process.stderr.write(`warning: ${m}\n`) });
};
const endpointSlice = (model: string, url: string) => ({ model, ...(url ? { baseURL: url } : {}) });
const modelFor = JUDGE_MODEL
  ? (() => {
      const one = endpointModel("judge", endpointSlice(JUDGE_MODEL, JUDGE_URL), true);
      return async (_task: RewardTask) => one;
    })()
  : async (task: RewardTask) => scriptedJudgeModel(task.id);

const visionWork: VisionWork = { episodes: 0, frames: 0, renderSeconds: 0, windows: 0, windowFrames: 0, windowSeconds: 0 };
/** The scripted vision server, when no --vision-model is given; closed at the end. */
const scriptedVision = VISION_MODEL || !existsSync(CHROMIUM) ? null : await startScriptedVision(MAX_IMAGES);
const visionLimits = { maxImages: MAX_IMAGES, video: false };
const vision: CalibrationJudge = !existsSync(CHROMIUM)
  ? visionNotRun(`${CHROMIUM} is missing: no frames to judge (apt-get install -y chromium)`)
  : visionJudge(
      VISION_MODEL || SCRIPTED_VISION_MODEL,
      {
        model: await endpointModel(
          "vision",
          { ...endpointSlice(VISION_MODEL || "scripted-vision", VISION_URL || scriptedVision!.url), maxImages: MAX_IMAGES },
          VISION_MODEL !== "",
        ),
        limits: visionLimits,
        dir: OUT,
      },
      visionWork,
    );

const JUDGES: CalibrationJudge[] = [fitnessJudge(), codeJudge(JUDGE_MODEL || SCRIPTED_MODEL, modelFor, OUT), vision];
const running = JUDGES.filter((j) => j.notRun === null);

interface Recorded {
  spec: PolicySpec;
  trainSeconds: number | null;
  cached: boolean;
  episodes: { seed: number; record: TrajectoryRecord }[];
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Every policy's episodes on the judged seeds, the PPO ones trained (or read from the cache) first. */
async function recordPolicies(task: RewardTask): Promise<Recorded[]> {
  const instance = task.generate(SEED);
  const seeds = judgedSeeds({ episodes: EPISODES }, instance);
  const out: Recorded[] = [];
  for (const spec of policySpecs(task, SCALE)) {
    const actor = await policyActor(task, instance, spec, join(OUT, "policies"));
    const episodes = seeds.map((seed) => ({ seed, record: recordEpisode({ task, instance, seed, act: actor.actFor(seed) }) }));
    const trained = actor.trainSeconds === null ? "no training" : `trained in ${actor.trainSeconds.toFixed(0)} s${actor.cached ? " (cached)" : ""}`;
    log(`${task.id} ${spec.name}: ${trained}, ${episodes.length} episodes recorded`);
    out.push({ spec, trainSeconds: actor.trainSeconds, cached: actor.cached, episodes });
  }
  return out;
}

/** How each episode's synthesis was reached (agree, single, settled by the synthesiser, …), counted over the run. */
const synthesisKinds = new Map<string, number>();

type Verdicts = Map<string, Partial<Record<CalibrationData["judges"][number]["name"], EpisodeVerdict[]>>>;

/** One repeat: each running judge readied for the task (a code judge authored anew), then every episode judged and synthesised. */
async function judgeRepeat(task: RewardTask, policies: Recorded[], repeat: number, verdicts: Verdicts): Promise<void> {
  const ready = await Promise.all(running.map(async (j) => [j.name, await j.forTask(task, task.description, repeat)] as const));
  const synthModel = await modelFor(task);
  for (const p of policies)
    for (const e of p.episodes) {
      const key = `${p.spec.name}/${e.seed}`;
      const got: Partial<Record<string, JudgedEpisode>> = {};
      for (const [name, judge] of ready) got[name] = await judge(e.record, `${task.id}-${p.spec.name}-${e.seed}`);
      const { verdict: synthesis, kind } = await synthesisOf(task.description, e.record, { code: got.code, vision: got.vision }, synthModel);
      synthesisKinds.set(kind, (synthesisKinds.get(kind) ?? 0) + 1);
      const row = verdicts.get(key) ?? {};
      for (const [name, v] of [...Object.entries(got), ["synthesis", synthesis] as const]) {
        const { detail: _shown, reask: _asked, ...kept } = v as JudgedEpisode;
        (row[name as keyof typeof row] ??= []).push(kept);
      }
      verdicts.set(key, row);
    }
}

async function calibrateTask(id: string): Promise<CalibrationData["policies"]> {
  const task = await loadTask(id);
  await task.prepare?.();
  const policies = await recordPolicies(task);
  const verdicts: Verdicts = new Map();
  for (let r = 0; r < REPEATS; r++) {
    await judgeRepeat(task, policies, r, verdicts);
    log(`${task.id}: repeat ${r + 1} of ${REPEATS} judged`);
  }
  return policies.map((p) => ({
    task: task.id,
    name: p.spec.name,
    expected: p.spec.expected,
    trainSeconds: p.trainSeconds,
    cached: p.cached,
    episodes: p.episodes.map((e) => ({
      seed: e.seed,
      steps: e.record.steps,
      fitness: episodeFitness(e.record),
      judges: verdicts.get(`${p.spec.name}/${e.seed}`) ?? {},
    })),
  }));
}

const policies: CalibrationData["policies"] = [];
const tasks: CalibrationData["tasks"] = [];
for (const id of TASKS) {
  policies.push(...(await calibrateTask(id)));
  const t = await loadTask(id);
  tasks.push({ id, solved: t.fitness.solved, fitness: t.fitness.describe });
}

await scriptedVision?.close();
if (vision.notRun === null) {
  const w = visionWork;
  vision.notes.push(
    `frames: ${w.frames} rendered for ${w.episodes} episodes in ${w.renderSeconds.toFixed(0)} s (${(w.frames / Math.max(w.renderSeconds, 1e-9)).toFixed(1)} frames/s, browser start included), each episode once for all repeats; reask_vision windows: ${w.windows} rendered, ${w.windowFrames} frames in ${w.windowSeconds.toFixed(0)} s`,
  );
}

const m = machineInfo();
const data = CalibrationData.parse({
  schemaVersion: 1,
  command: commandLine(),
  rerun: RERUN,
  commit,
  machine: `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB memory, Node ${m.node}, ${m.platform}`,
  started,
  finished: new Date().toISOString(),
  loadStart,
  loadEnd: os.loadavg(),
  model: JUDGE_MODEL
    ? {
        kind: "endpoint",
        name: JUDGE_MODEL,
        note: `llm.judge at ${JUDGE_URL || "OPENAI_BASE_URL"}; its exchanges in ${relative(ROOT, join(OUT, "llm-log.jsonl"))}`,
      }
    : {
        kind: "scripted",
        name: SCRIPTED_MODEL,
        note: "its decomposition and leaf code per task are written by hand in bench/judge-calibration-fixture.ts; these numbers measure the harness and those hand-written judges, not a model",
      },
  visionModel: VISION_MODEL
    ? {
        kind: "endpoint",
        name: VISION_MODEL,
        note: `llm.vision at ${VISION_URL || "OPENAI_BASE_URL"}, ${MAX_IMAGES} images a request; its exchanges in ${relative(ROOT, join(OUT, "llm-log.jsonl"))}`,
      }
    : {
        kind: "scripted",
        name: SCRIPTED_VISION_MODEL,
        note: `a local OpenAI-compatible server started by the bench, sent the real requests (the intent, then ${MAX_IMAGES} images a request at most); ${SCRIPTED_VISION_RULE}. It never sees F; these vision and synthesis numbers measure the plumbing (rendering, both turns, the synthesiser's tools), not a model's judgement`,
      },
  tasks,
  intent: "each task's own description (the text `hexa judge` uses when no --intent is given)",
  repeats: REPEATS,
  episodesPerPolicy: EPISODES,
  passThreshold: PASS_THRESHOLD,
  resamples: RESAMPLES,
  judges: [
    ...JUDGES.map((j) => ({ name: j.name, label: j.label, model: j.model, notRun: j.notRun, notes: j.notes })),
    {
      name: "synthesis" as const,
      label: "synthesis of the code and vision judges (agreement rule, then the synthesiser)",
      model: JUDGE_MODEL || SCRIPTED_MODEL,
      notRun: null,
      notes: [
        `how the syntheses were reached: ${[...synthesisKinds].map(([k, n]) => `${k} ${n}`).join(", ")}`,
        ...(JUDGE_MODEL ? [] : [`scripted synthesiser: ${SCRIPTED_SYNTHESIS_RULE}`]),
      ],
    },
  ],
  policies,
});

if (process.argv.includes(WRITE_PAGE_FLAG)) writeDataPage("judge-calibration", data);
else process.stdout.write(renderCalibrationPage(data, BENCH_PAGES["judge-calibration"].title, "(not written: run with --write-page)"));
