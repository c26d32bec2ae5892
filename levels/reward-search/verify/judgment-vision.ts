/**
 * The vision judge and the synthesiser of a `hexa judge` folder, replayed for `hexa verify` (docs/guides/judging.md,
 * "hexa verify of a judgment"): each distinct pick's frames read back from the folder (judgment-frames.ts) and
 * judged again by judge-vision.ts with both roles answered from llm-log.jsonl, so every request is rebuilt with
 * the recorded images' hashes. A `reask_vision` the synthesiser made renders its window again, as hexa judge
 * did, and so needs chromium; a video clip needs ffmpeg. Without them the folder cannot be verified, said so.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { JudgmentReplayRecord } from "../../../src/family/replay.ts";
import { CannotVerify } from "../../../src/verify/outcome.ts";
import type { JudgmentFile, PickedEpisode } from "../cli/judge-file.ts";
import { episodeOf, judgeRendered, type VisionStep } from "../cli/judge-vision.ts";
import { CHROMIUM } from "../pictures/episode-frames.ts";
import { FFMPEG, haveFfmpeg } from "../pictures/frame-files.ts";
import { readTrajectoryFile } from "../trajectory/trajectory-file.ts";
import { frameBudget, recordedFrames } from "./judgment-frames.ts";

/** Whether the record's synthesiser re-asked the vision judge about a window (hexa judge rendered it then). */
const reasked = (f: JudgmentFile): boolean =>
  f.picks.some((p) => p.synthesis.kind === "settled" && p.synthesis.toolCalls.some((c) => c.name === "reask_vision" && c.status === "ran"));

/**
 * Whether the vision judge was sent clips: as its verdicts say (hexa judge made none without ffmpeg); with no
 * verdict to say, as hexa judge decides, by `vision.video` and ffmpeg here.
 */
const clipsSent = (f: JudgmentFile, video: boolean): boolean => {
  const verdicts = f.picks.flatMap((p) => (p.vision?.kind === "verdict" ? [p.vision] : []));
  return video && (verdicts.length === 0 || verdicts.some((v) => v.sent.video));
};

/** The vision step as hexa judge ran it, its models answering from the log; refused when the replay lacks what it needs. */
const replayedStep = (r: JudgmentReplayRecord, f: JudgmentFile, where: string): VisionStep => {
  const model = r.model("vision");
  if (!model) throw new CannotVerify(`${where}: vision: the picks hold vision judgments but llm-log.jsonl holds no llm.vision exchange`);
  if (f.intent === null) throw new CannotVerify(`${where}: intent: null, but the vision judge needs its intent`);
  const used = f.vision!;
  const video = clipsSent(f, used.video);
  if (video && !haveFfmpeg())
    throw new CannotVerify(`${where}: vision.video: the vision judge was sent clips made by ${FFMPEG}, which is missing: cannot verify, needs ffmpeg`);
  if (reasked(f) && !existsSync(CHROMIUM))
    throw new CannotVerify(
      `${where}: picks: the synthesiser's reask_vision rendered a window with ${CHROMIUM}, which is missing: cannot verify, needs chromium`,
    );
  const judge = r.model("judge");
  return {
    intent: f.intent,
    model,
    limits: { maxImages: used.maxImages, video },
    trail: used.trail,
    ...(judge ? { judgeModel: async () => judge } : {}),
    ...(used.corrections ? { corrections: used.corrections } : {}),
  };
};

/**
 * Sets each pick's `vision`, `synthesis` and `frames` as the replayed vision judge and synthesiser give them;
 * false (the picks untouched) where the record holds no vision judgment (no vision model, or no chromium then).
 */
export async function replayVision(r: JudgmentReplayRecord, f: JudgmentFile, picks: PickedEpisode[]): Promise<boolean> {
  if (f.vision === undefined || !f.picks.some((p) => p.vision !== undefined)) return false;
  const where = join(r.judgmentDir, "judgment.json");
  const step = replayedStep(r, f, where);
  const budget = frameBudget();
  const done = new Map<number, Awaited<ReturnType<typeof judgeRendered>> & { frames: string }>();
  for (const p of picks) {
    let judged = done.get(p.seed);
    if (!judged) {
      const episode = await episodeOf(readTrajectoryFile(join(r.judgmentDir, `trajectory-${p.seed}.bin`)));
      const frames = recordedFrames(r.judgmentDir, p.seed, episode.record, step.trail, budget);
      judged = { ...(await judgeRendered(step, r.workDir, episode, frames, p.judgment)), frames: join("frames", String(p.seed)) };
      done.set(p.seed, judged);
    }
    Object.assign(p, { vision: judged.vision, synthesis: judged.synthesis, frames: judged.frames });
  }
  return true;
}
