/**
 * The scripted vision model of the calibration bench (docs/benchmarks/judge-calibration.md): when no
 * `--vision-model` is given, the vision judge talks to a local OpenAI-compatible server (test/support/fake-endpoint.ts,
 * the server the vision tests use) that answers by the rule below, from nothing but what each request carries:
 * the intent's words, the frames' times and the images' bytes. It never sees F, the policy or the trajectory.
 *
 * - Criteria (turn 1): the intent's "Goal:" line, that the body keeps moving, that the episode runs to its time limit.
 * - Verdict (turn 2): motion = the share of consecutive frames whose image bytes differ; lasted = the last frame's
 *   time over the time limit the intent states (1 when it states none); score = motion × lasted in tenths.
 * - A question about a window (reask_vision): how many consecutive frames of the window differ.
 *
 * A real model could follow this rule from the same requests, which is the point: the numbers it makes measure the
 * plumbing (frames rendered, sent in order, both turns, the synthesiser), not a model's judgement.
 */
import { createHash } from "node:crypto";
import type { RoleModel } from "../src/llm/ask.ts";
import type { Message } from "../src/llm/chat-model.ts";
import { answeredBy } from "../src/llm/openai-chat.ts";
import type { RecordedRequest } from "../test/support/fake-openai-server.ts";
import { type FakeEndpoint, startFakeEndpoint } from "../test/support/fake-endpoint.ts";

export const SCRIPTED_VISION_MODEL = "scripted-vision (bench/judge-calibration-vision-model.ts)";

export const SCRIPTED_VISION_RULE =
  "its score is the share of consecutive frames whose image bytes differ times the share of the intent's time limit the frames reach, in tenths (bench/judge-calibration-vision-model.ts)";

type Body = RecordedRequest["body"];
type Part = { type?: string; text?: string; image_url?: { url?: string } };

/** What one request shows the model: its text, its images' SHA-256 in order, and the frames' times. */
export interface Shown {
  text: string;
  images: string[];
  times: number[];
}

export const shownBy = (b: Body): Shown => {
  const parts = b.messages.flatMap((m): Part[] => (Array.isArray(m.content) ? (m.content as Part[]) : [{ type: "text", text: String(m.content ?? "") }]));
  const text = parts.map((p) => (p.type === "text" ? (p.text ?? "") : "")).join("\n");
  const images = parts
    .filter((p) => p.type === "image_url")
    .map((p) =>
      createHash("sha256")
        .update(Buffer.from((p.image_url?.url ?? "").split(",")[1] ?? "", "base64"))
        .digest("hex"),
    );
  const times = [...text.matchAll(/Frame \d+ \(t = ([\d.]+) s\)/g)].map((m) => Number(m[1]));
  return { text, images, times };
};

/** Consecutive frames whose bytes differ, of the pairs shown. */
const motionOf = (images: readonly string[]): { changed: number; pairs: number; share: number } => {
  const pairs = Math.max(0, images.length - 1);
  let changed = 0;
  for (let i = 1; i < images.length; i++) if (images[i] !== images[i - 1]) changed++;
  return { changed, pairs, share: pairs === 0 ? 0 : changed / pairs };
};

/** The intent's stated time limit in seconds ("Time limit: 1000 steps (8 s, truncation)"), if it states one. */
const timeLimitOf = (text: string): number | undefined => {
  const m = /Time limit:[^\n(]*\((\d+(?:\.\d+)?) s\b/.exec(text);
  return m ? Number(m[1]) : undefined;
};

const goalOf = (text: string): string => {
  const goal = /Goal: ([^\n"]+)/.exec(text)?.[1] ?? /behaviour wanted: "([^."\n]+)/.exec(text)?.[1] ?? "the behaviour asked for";
  return goal.trim().slice(0, 200);
};

const status = (x: number) => (x >= 0.9 ? "met" : x >= 0.4 ? "partially_met" : "not_met");

/** Turn 2: the verdict by the rule, each criterion copied from the request as the schema asks. */
export const scriptedVerdict = (s: Shown): Record<string, unknown> => {
  const block = /Your criteria, fixed before you saw the episode:\n((?:\d\. .*\n?)+)/.exec(s.text)?.[1] ?? "";
  const criteria = [...block.matchAll(/^\d\. (.+)$/gm)].map((m) => m[1]!.trim());
  const motion = motionOf(s.images);
  const last = s.times.at(-1) ?? 0;
  const limit = timeLimitOf(s.text);
  const lasted = limit === undefined ? 1 : Math.min(1, last / limit);
  const score = Math.round(10 * motion.share * lasted) / 10;
  const seen = `the picture changes between ${motion.changed} of ${motion.pairs} consecutive frames; the frames reach ${last} s${limit === undefined ? "" : ` of the ${limit} s limit`}`;
  const verdicts = [score, motion.share, lasted];
  return {
    criteria: criteria.map((criterion, i) => ({ criterion, assessment: seen, status: status(verdicts[Math.min(i, 2)]!) })),
    intent_score: score,
    diagnosis: `Scripted: ${seen}.`,
    failure_tags: [...(motion.share < 0.5 ? ["little_motion"] : []), ...(lasted < 0.9 ? ["ended_early"] : [])],
  };
};

/** The answer to one request, by the schema it asks for. */
export const scriptedVisionReply = (b: Body): string => {
  const s = shownBy(b);
  const name = (b.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema?.name;
  switch (name) {
    case "vision_criteria":
      return JSON.stringify({
        criteria: [
          `The body achieves the goal: ${goalOf(s.text)}`,
          "The body keeps moving from frame to frame",
          "The episode runs to the task's time limit without ending early",
        ],
      });
    case "vision_review":
      return JSON.stringify({ approved: true });
    case "vision_verdict":
      return JSON.stringify(scriptedVerdict(s));
    case "vision_answer": {
      const m = motionOf(s.images);
      return JSON.stringify({ answer: `The picture changes between ${m.changed} of ${m.pairs} consecutive frames of this window.` });
    }
    default:
      throw new Error(`bench/judge-calibration-vision-model.ts: no scripted answer for ${String(name)}`);
  }
};

/** The scripted vision server: at most `maxImages` images a request, as vLLM's --limit-mm-per-prompt; answers at once. */
export const startScriptedVision = (maxImages: number): Promise<FakeEndpoint> =>
  startFakeEndpoint({ delayMs: 0, maxImages, models: ["scripted-vision"], reply: scriptedVisionReply });

/** A message in the record form as the wire carries it: text and `image_url` parts in order. */
const wireOf = (m: Message): Record<string, unknown> => {
  if (m.role !== "user" || !m.parts) return { role: m.role, content: m.content };
  const content = m.parts.map((p) =>
    p.type === "text" ? { type: "text", text: p.text } : { type: "image_url", image_url: { url: `data:${p.mime};base64,${p.base64}` } },
  );
  return { role: m.role, content };
};

/**
 * The same scripted vision model answering in-process, at once (no server, no HTTP): for timing hexa's side of a
 * judgment with the model's time taken out (bench/judge-overhead.ts).
 */
export const instantScriptedVision = (): RoleModel =>
  answeredBy(SCRIPTED_VISION_MODEL, async (messages, _tools, output) => ({
    text: scriptedVisionReply({
      model: "scripted-vision",
      messages: messages.map(wireOf),
      response_format: { type: "json_schema", json_schema: { name: output?.name } },
    } as Body),
    toolCalls: [],
    usage: { input: 0, output: 0, cached: 0 },
    model: SCRIPTED_VISION_MODEL,
    latencyMs: 0,
    fromCache: false,
  }));
