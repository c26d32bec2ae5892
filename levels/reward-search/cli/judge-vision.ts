/**
 * `hexa judge` with a vision model (docs/guides/judging.md, "hexa judge"): each picked episode's frames (480 × 480,
 * 10 fps, the trail with `--trail`) are rendered into `<dir>/frames/<seed>/` and judged by the vision judge
 * (judging/vision-judge.ts) against the intent, with a scene note hexa writes; then the code and vision judges are
 * combined by the synthesiser (judging/synthesiser.ts), whose `reask_vision` renders the asked window closer.
 * Without a judge model a disagreement stays unsettled, its rule saying so.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { RoleModel } from "../../../src/llm/ask.ts";
import { synthesise } from "../judging/agreement.ts";
import { breakdownLines } from "../judging/breakdown-text.ts";
import type { Judgment } from "../judging/judgment.ts";
import type { SynthesisRecord } from "../judging/synthesis.ts";
import { synthesiseJudges } from "../judging/synthesiser.ts";
import { judgedFrames } from "../judging/vision-frames.ts";
import { askVision, judgeFrames, type VisionJudgment, type VisionLimits } from "../judging/vision-judge.ts";
import { CHROMIUM, type EpisodeFrames, JUDGED_FRAME_FPS, JUDGED_FRAME_SIZE, renderEpisodeFrames } from "../pictures/episode-frames.ts";
import { framesClip } from "../pictures/frame-clip.ts";
import { haveFfmpeg, writeFrames } from "../pictures/frame-files.ts";
import { type FrameScene, loadScene } from "../pictures/frame-scene.ts";
import type { TrajectoryRecord } from "../trajectory/record.ts";
import { readTrajectoryFile } from "../trajectory/trajectory-file.ts";
import type { PickedEpisode, VisionRecord } from "./judge-file.ts";
import { sceneNote } from "./judge-scene.ts";
import { windowFrames } from "./judge-window.ts";

export interface VisionStep {
  intent: string;
  /** The vision role's model and what its server takes. */
  model: RoleModel;
  limits: VisionLimits;
  /** Send the motion trail as a second sequence. */
  trail: boolean;
  /** The judge role's model, for the synthesiser; none: a disagreement is left unsettled. */
  judgeModel?: () => Promise<RoleModel>;
  /** Where the criteria are stored per intent (default: the judgment folder); a search judging many policies keeps one set. */
  criteriaDir?: string;
  /** The user's corrections the verdicts weigh (a p2p search's); none: the prompt is as without. */
  corrections?: string | undefined;
}

/** One episode's vision judgment and synthesis. */
interface Judged {
  vision: VisionRecord;
  synthesis: SynthesisRecord;
  frames: string;
}

/** A judged episode: its trajectory, the scene it is drawn in, and the scene note the vision judge is sent. */
interface Episode {
  record: TrajectoryRecord;
  scene: FrameScene;
  context: string;
}

/** The vision judge's verdict as the synthesiser reads it: each criterion's verdict and assessment, then the diagnosis. */
const assessmentOf = (v: Extract<VisionJudgment, { kind: "verdict" }>): string =>
  [...v.criteria.map((c, i) => `${i + 1}. ${c.criterion}: ${c.status} (${c.assessment})`), `Diagnosis: ${v.diagnosis}`].join("\n");

/** reask_vision: the window rendered closer and asked about; the answer, or the vision judge's failure, as text. */
const reaskOf =
  (e: Episode, model: RoleModel, limits: VisionLimits) =>
  async (question: string, fromS: number, toS: number): Promise<string> => {
    const frames = await windowFrames(e.scene, e.record, fromS, toS, limits.maxImages);
    const a = await askVision(model, { question, fromS, toS, frames, context: e.context }, limits);
    if (a.kind === "failure") return `the vision judge could not answer (${a.stage}, ${a.fault}): ${a.message}`;
    return `${a.answer} (seen in ${a.sent.frames} frames from ${fromS} s to ${toS} s)`;
  };

/** A recorded episode with its scene and scene note. */
export const episodeOf = async (record: TrajectoryRecord): Promise<Episode> => {
  const scene = await loadScene(record.header.model);
  return { record, scene, context: sceneNote(record.header, scene.camera) };
};

/**
 * The vision judge over an episode's rendered frames, then its synthesis with the code judgment; the criteria are
 * stored in `criteriaDir`. `hexa verify` calls this with the frames it reads back from the judgment folder.
 */
export async function judgeRendered(
  step: VisionStep,
  criteriaDir: string,
  episode: Episode,
  r: EpisodeFrames,
  code: Judgment | undefined,
): Promise<Omit<Judged, "frames">> {
  const { model, limits } = step;
  const clip =
    limits.video && haveFfmpeg()
      ? { frames: await framesClip(r.frames, JUDGED_FRAME_FPS), trail: r.trail ? await framesClip(r.trail, JUDGED_FRAME_FPS, "trail") : undefined }
      : undefined;
  const request = { intent: step.intent, ...judgedFrames(r), context: episode.context, clip, corrections: step.corrections };
  const vision = await judgeFrames(model, request, { limits, trail: step.trail, dir: criteriaDir });
  const judges = {
    intent: step.intent,
    record: episode.record,
    code: code ? { score: code.score, breakdown: breakdownLines(code) } : null,
    vision: vision.kind === "verdict" ? { score: vision.score, assessment: assessmentOf(vision) } : null,
  };
  const synthesis = step.judgeModel
    ? await synthesiseJudges(judges, { model: await step.judgeModel(), reaskVision: reaskOf(episode, model, limits) })
    : unsettled(judges.code?.score, judges.vision?.score);
  return { vision, synthesis };
}

/** Renders, judges and synthesises one episode. */
async function judgeEpisode(dir: string, step: VisionStep, seed: number, code: Judgment | undefined): Promise<Judged> {
  const episode = await episodeOf(readTrajectoryFile(join(dir, `trajectory-${seed}.bin`)));
  const r = await renderEpisodeFrames(episode.scene, episode.record, { fps: JUDGED_FRAME_FPS, size: JUDGED_FRAME_SIZE, trail: step.trail });
  const folder = join("frames", String(seed));
  writeFrames(join(dir, folder), r.frames, "frame");
  if (r.trail) writeFrames(join(dir, folder), r.trail, "trail");
  return { ...(await judgeRendered(step, step.criteriaDir ?? dir, episode, r, code)), frames: folder };
}

/** The agreement rule alone, with no judge model to settle a disagreement. */
const unsettled = (code: number | undefined, vision: number | undefined): SynthesisRecord => {
  const s = synthesise({ code, vision });
  return s.kind === "disagree" ? { ...s, rule: `${s.rule.replace(/; to be settled .*$/, "")}; not settled: no llm.judge model to settle it` } : s;
};

/**
 * Each distinct picked episode judged once by the vision judge and synthesised with its code judgment; sets each
 * pick's `vision`, `synthesis` and `frames`. Without chromium nothing is judged and a note says so.
 */
export async function visionPicks(dir: string, step: VisionStep, picks: PickedEpisode[]): Promise<string[]> {
  if (!existsSync(CHROMIUM)) return [`llm.vision: no frames to judge: ${CHROMIUM} is missing (apt-get install -y chromium); the vision judge did not run`];
  const done = new Map<number, Judged>();
  for (const p of picks) {
    const judged = done.get(p.seed) ?? (await judgeEpisode(dir, step, p.seed, p.judgment));
    done.set(p.seed, judged);
    Object.assign(p, { vision: judged.vision, synthesis: judged.synthesis, frames: judged.frames });
  }
  return [];
}
