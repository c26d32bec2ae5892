/**
 * The vision judge of the calibration bench (docs/benchmarks/judge-calibration.md): each judged episode rendered
 * once (480 × 480, the scene `hexa judge` draws, levels/reward-search/cli/judge-vision.ts) and judged on every
 * repeat by the real vision path (judging/vision-judge.ts: criteria from the intent and the first frame, stored
 * per repeat; then the verdict over the ordered frames) against the `llm.vision` role's model. Frames are rendered
 * at 10 fps, or at the lower rate that fits a long episode into one request's `maxImages` (hexa judge renders
 * 10 fps and thins evenly to that count): about the same frames are sent, in number and in spread over the episode.
 * Each verdict carries the synthesiser's `reask_vision` for its episode: the window rendered at the source rate.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { RoleModel } from "../src/llm/ask.ts";
import { episodeOf } from "../levels/reward-search/cli/judge-vision.ts";
import { windowFrames } from "../levels/reward-search/cli/judge-window.ts";
import type { ReaskVision } from "../levels/reward-search/judging/synthesiser-tools.ts";
import { judgedFrames } from "../levels/reward-search/judging/vision-frames.ts";
import { askVision, judgeFrames, type VisionJudgment, type VisionLimits } from "../levels/reward-search/judging/vision-judge.ts";
import { type EpisodeFrames, JUDGED_FRAME_FPS, JUDGED_FRAME_SIZE, renderEpisodeFrames } from "../levels/reward-search/pictures/episode-frames.ts";
import type { TrajectoryRecord } from "../levels/reward-search/trajectory/record.ts";
import { type CalibrationJudge, PASS_THRESHOLD } from "./judge-calibration-judges.ts";

export interface VisionSetup {
  model: RoleModel;
  limits: VisionLimits;
  /** The bench's folder: the criteria are stored under it per task and repeat. */
  dir: string;
}

/** What the vision judge's work took, over the run: frames rendered and the seconds spent rendering them. */
export interface VisionWork {
  episodes: number;
  frames: number;
  renderSeconds: number;
  windows: number;
  windowFrames: number;
  windowSeconds: number;
}

type Episode = Awaited<ReturnType<typeof episodeOf>>;

/** The rate that gives at most `maxImages` frames over the episode, 10 fps at most. */
const fpsFor = (record: TrajectoryRecord, maxImages: number): number => {
  const seconds = record.steps * record.header.dt;
  return seconds > 0 ? Math.min(JUDGED_FRAME_FPS, maxImages / seconds) : JUDGED_FRAME_FPS;
};

const assessmentOf = (v: Extract<VisionJudgment, { kind: "verdict" }>): string[] => [
  ...v.criteria.map((c, i) => `${i + 1}. ${c.criterion}: ${c.status} (${c.assessment})`),
  `Diagnosis: ${v.diagnosis}`,
];

/** The vision judge over `setup`'s model; `work` counts what it rendered. */
export const visionJudge = (modelName: string, setup: VisionSetup, work: VisionWork): CalibrationJudge => {
  const rendered = new Map<string, { episode: Episode; frames: EpisodeFrames }>();
  const windows = new Map<string, Awaited<ReturnType<typeof windowFrames>>>();
  const { model, limits } = setup;

  const framesOf = async (key: string, record: TrajectoryRecord) => {
    const known = rendered.get(key);
    if (known) return known;
    const t0 = performance.now();
    const episode = await episodeOf(record);
    const frames = await renderEpisodeFrames(episode.scene, record, { fps: fpsFor(record, limits.maxImages), size: JUDGED_FRAME_SIZE, trail: false });
    Object.assign(work, {
      episodes: work.episodes + 1,
      frames: work.frames + frames.frames.length,
      renderSeconds: work.renderSeconds + (performance.now() - t0) / 1000,
    });
    rendered.set(key, { episode, frames });
    return { episode, frames };
  };

  /** reask_vision on one episode; a window is rendered once for the run (the same poses render the same pixels). */
  const reaskOf =
    (key: string, episode: Episode): ReaskVision =>
    async (question, fromS, toS) => {
      const at = `${key} ${fromS} ${toS}`;
      let frames = windows.get(at);
      if (!frames) {
        const t0 = performance.now();
        frames = await windowFrames(episode.scene, episode.record, fromS, toS, limits.maxImages);
        Object.assign(work, {
          windows: work.windows + 1,
          windowFrames: work.windowFrames + frames.length,
          windowSeconds: work.windowSeconds + (performance.now() - t0) / 1000,
        });
        windows.set(at, frames);
      }
      const a = await askVision(model, { question, fromS, toS, frames, context: episode.context }, limits);
      if (a.kind === "failure") return `the vision judge could not answer (${a.stage}, ${a.fault}): ${a.message}`;
      return `${a.answer} (seen in ${a.sent.frames} frames from ${fromS} s to ${toS} s)`;
    };

  const judge: CalibrationJudge = {
    name: "vision",
    label: "vision judge",
    model: modelName,
    notRun: null,
    notes: [],
    forTask: async (task, intent, repeat) => {
      const dir = join(setup.dir, "vision", task.id, `repeat-${repeat}`);
      rmSync(dir, { recursive: true, force: true });
      return async (record, key) => {
        const { episode, frames } = await framesOf(key, record);
        const v = await judgeFrames(model, { intent, ...judgedFrames(frames), context: episode.context }, { limits, dir });
        if (v.kind === "failure") return { score: null, passed: null, note: `${v.stage} ${v.fault}: ${v.message}`.slice(0, 500) };
        return { score: v.score, passed: v.score >= PASS_THRESHOLD, detail: assessmentOf(v), reask: reaskOf(key, episode) };
      };
    },
  };
  return judge;
};
