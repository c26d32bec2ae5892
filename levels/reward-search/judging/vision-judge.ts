/**
 * The vision judge (docs/guides/judging.md, "Vision judge"): Prompt-to-Policy's two turns over any
 * OpenAI-compatible endpoint that takes images. Turn 1 fixes 3–5 criteria from the intent and the first frame
 * (vision-criteria.ts); turn 2 sends the criteria verbatim and the episode as ordered `image_url` parts (or one
 * `video_url` clip where the server takes video) and reads a verdict per criterion and one holistic score. A model
 * answer that cannot be used is retried once, then the judgment is a labelled failure, never a crash.
 */
import { type HumanMessage, SystemMessage } from "@langchain/core/messages";
import { ConfigError, ModelOutputError } from "../../../src/errors.ts";
import type { ContentPart } from "../../../src/llm/chat-model.ts";
import { askStructured, type RoleModel } from "../../../src/llm/ask.ts";
import { humanWithParts, mediaPart } from "../../../src/llm/content-parts.ts";
import { LlmError } from "../../../src/llm/llm-error.ts";
import { visionCriteria, type VisionCriteria } from "./vision-criteria.ts";
import { checkFrames, fitFrames, framesBetween, sequenceParts, type JudgedFrames, type TimedFrame } from "./vision-frames.ts";
import { QUESTION_ASK, questionPrompt, SYSTEM, verdictAsk, verdictPrompt } from "./vision-prompts.ts";
import { QuestionAnswer, verdictAnswer, type CriterionStatus } from "./vision-verdict.ts";

/** What the server takes in one request: `llm.vision.maxImages` and `llm.vision.video` (src/llm/config.ts). */
export interface VisionLimits {
  maxImages: number;
  video: boolean;
}

export interface VisionRequest extends JudgedFrames {
  intent: string;
  /** A line about the scene (e.g. which way is forward in the picture), sent with both turns. */
  context?: string | undefined;
  /** The user's corrections (a p2p search's), sent with the verdict turn only: the criteria stay as fixed. */
  corrections?: string | undefined;
  /** MP4 clips of the frames (and of the trail): sent instead of the pictures where `limits.video` is on. */
  clip?: { frames: Buffer; trail?: Buffer | undefined } | undefined;
}

export interface VisionOptions {
  limits: VisionLimits;
  /** Send the motion trail as a second sequence (needs `trail` frames). */
  trail?: boolean;
  /** Where the criteria are stored per intent (vision-criteria.ts); none: asked for every judgment. */
  dir?: string | undefined;
}

interface CriterionVerdict {
  criterion: string;
  status: CriterionStatus;
  assessment: string;
}

/** What was sent in turn 2. */
interface FramesSent {
  /** Frames sent, of the frames given. */
  frames: number;
  of: number;
  trail: number;
  video: boolean;
  /** The times of the frames sent, in seconds. */
  times: number[];
}

export type VisionJudgment =
  | {
      kind: "verdict";
      model: string;
      score: number;
      criteria: CriterionVerdict[];
      diagnosis: string;
      failureTags: string[];
      criteriaSource: VisionCriteria["source"];
      reviewRounds: number;
      sent: FramesSent;
    }
  | {
      kind: "failure";
      model: string;
      stage: Stage;
      /** answer: the model's answer was unusable after one retry; endpoint: the server failed or refused the request. */
      fault: "answer" | "endpoint";
      message: string;
    };

const WHERE = "llm.vision";
type Stage = "criteria" | "verdict" | "question";
const MAX_INTENT_CHARS = 2000;
const MAX_CONTEXT_CHARS = 1000;
const MAX_CLIP_BYTES = 32 << 20;

/** A clip is bounded like a frame: 1 byte to MAX_CLIP_BYTES. */
const checkClip = (clip: VisionRequest["clip"], where: string): void => {
  for (const [field, bytes] of [
    ["frames", clip?.frames],
    ["trail", clip?.trail],
  ] as const)
    if (bytes !== undefined && (bytes.byteLength === 0 || bytes.byteLength > MAX_CLIP_BYTES))
      throw new ConfigError(`${where}.clip.${field}: ${bytes.byteLength} bytes; a clip is 1 byte to ${MAX_CLIP_BYTES}`);
};

/** The intent and the scene note are the caller's text: bounded, and refused naming the field. */
const checkWords = (r: { intent?: string; question?: string; context?: string | undefined }, where: string): void => {
  for (const [field, text, max] of [
    ["intent", r.intent, MAX_INTENT_CHARS],
    ["question", r.question, MAX_INTENT_CHARS],
    ["context", r.context, MAX_CONTEXT_CHARS],
  ] as const) {
    if (text === undefined) continue;
    if (field !== "context" && text.trim() === "") throw new ConfigError(`${where}.${field}: empty (got ${JSON.stringify(text)}); say what to judge`);
    if (text.length > max) throw new ConfigError(`${where}.${field}: ${text.length} characters, more than ${max}; shorten it`);
  }
};

/** A failure the judgment reports instead of throwing; anything else (a spend cap, a hexa bug) goes on up. */
const labelled = (model: string, stage: Stage, e: unknown): VisionJudgment => {
  if (e instanceof ModelOutputError) return { kind: "failure", model, stage, fault: "answer", message: e.message };
  if (e instanceof LlmError)
    return {
      kind: "failure",
      model,
      stage,
      fault: "endpoint",
      message: `${e.message}; if the server limits images per request, set ${WHERE}.maxImages (hexa doctor --role vision measures it)`,
    };
  throw e;
};

/** Turn 2's user message: the prompt, the episode (pictures or clips), then what to answer. */
const episodeMessage = (r: VisionRequest, criteria: readonly string[], o: VisionOptions): { message: HumanMessage; sent: FramesSent } => {
  const useVideo = o.limits.video && r.clip !== undefined;
  const withTrail = o.trail === true && (useVideo ? r.clip?.trail !== undefined : r.trail !== undefined);
  const head: ContentPart = {
    type: "text",
    text: verdictPrompt(r.intent, criteria, { trail: withTrail, video: useVideo, context: r.context, corrections: r.corrections }),
  };
  const ask: ContentPart = { type: "text", text: `\n${verdictAsk()}` };
  if (useVideo) {
    const clips = [mediaPart(r.clip!.frames, "video/mp4"), ...(withTrail ? [mediaPart(r.clip!.trail!, "video/mp4")] : [])];
    const times = r.frames.map((f) => f.t);
    return {
      message: humanWithParts([head, ...clips, ask]),
      sent: { frames: r.frames.length, of: r.frames.length, trail: withTrail ? r.frames.length : 0, video: true, times },
    };
  }
  const fit = fitFrames(r, o.limits.maxImages, withTrail);
  const parts = [
    head,
    ...sequenceParts(fit.trail ? "\nSequence 1, the episode:" : "", fit.frames),
    ...(fit.trail ? sequenceParts("\nSequence 2, the same episode with motion trails:", fit.trail) : []),
    ask,
  ].filter((p) => p.type !== "text" || p.text !== "");
  const sent = { frames: fit.frames.length, of: r.frames.length, trail: fit.trail?.length ?? 0, video: false, times: fit.frames.map((f) => f.t) };
  return { message: humanWithParts(parts), sent };
};

/**
 * Judges an episode's rendered frames against an intent with the `llm.vision` role's model. Frames are PNGs
 * with their simulated times (pictures/episode-frames.ts renders them); bad frames are the caller's error
 * (ConfigError naming the field).
 */
export const judgeFrames = async (model: RoleModel, r: VisionRequest, o: VisionOptions): Promise<VisionJudgment> => {
  checkFrames(r, "vision judge");
  checkWords(r, "vision judge");
  checkClip(r.clip, "vision judge");
  let criteria: VisionCriteria;
  try {
    criteria = await visionCriteria(model, { intent: r.intent, firstFrame: r.frames[0]!, context: r.context }, { dir: o.dir });
  } catch (e) {
    return labelled(model.model, "criteria", e);
  }
  const { message, sent } = episodeMessage(r, criteria.criteria, o);
  try {
    const { value } = await askStructured(model, [new SystemMessage(SYSTEM), message], verdictAnswer(criteria.criteria), {
      name: "vision_verdict",
    });
    return {
      kind: "verdict",
      model: model.model,
      score: Math.round(value.intent_score * 10) / 10,
      criteria: value.criteria.map((c, i) => ({ criterion: criteria.criteria[i]!, status: c.status, assessment: c.assessment })),
      diagnosis: value.diagnosis,
      failureTags: value.failure_tags,
      criteriaSource: criteria.source,
      reviewRounds: criteria.reviewRounds,
      sent,
    };
  } catch (e) {
    return labelled(model.model, "verdict", e);
  }
};

export interface VisionQuestion {
  question: string;
  fromS: number;
  toS: number;
  frames: readonly TimedFrame[];
  context?: string | undefined;
}

export type VisionAnswer = { kind: "answer"; model: string; answer: string; sent: FramesSent } | Extract<VisionJudgment, { kind: "failure" }>;

/**
 * A question about a window [fromS, toS] of the episode, answered from its frames in that window (thinned to
 * `maxImages`): the synthesiser's `reask_vision`. Render the window at a higher rate for a closer look.
 */
export const askVision = async (model: RoleModel, q: VisionQuestion, limits: VisionLimits): Promise<VisionAnswer> => {
  checkFrames({ frames: q.frames }, "vision question");
  checkWords(q, "vision question");
  const question = q.question.trim();
  const window = framesBetween(q.frames, q.fromS, q.toS, "vision question");
  const { frames } = fitFrames({ frames: window }, limits.maxImages, false);
  const message = humanWithParts([
    { type: "text", text: questionPrompt(question, q.fromS, q.toS, q.context) },
    ...sequenceParts("", frames).filter((p) => p.type !== "text" || p.text !== ""),
    { type: "text", text: `\n${QUESTION_ASK}` },
  ]);
  const sent = { frames: frames.length, of: window.length, trail: 0, video: false, times: frames.map((f) => f.t) };
  try {
    const { value } = await askStructured(model, [new SystemMessage(SYSTEM), message], QuestionAnswer, { name: "vision_answer" });
    return { kind: "answer", model: model.model, answer: value.answer, sent };
  } catch (e) {
    return labelled(model.model, "question", e) as VisionAnswer;
  }
};
