import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeEndpoint } from "../../../test/support/fake-endpoint.ts";
import { startFakeOpenAI, type FakeOpenAI, type ScriptItem } from "../../../test/support/fake-openai-server.ts";
import { tempDirs } from "../../../test/support/temp-files.ts";
import { AuditLine } from "../../../src/llm/audit-log.ts";
import { LlmConfig } from "../../../src/llm/config.ts";
import { EndpointLimits } from "../../../src/llm/endpoint-limits.ts";
import { createRoleModel } from "../../../src/llm/role-model.ts";
import { criteriaFile } from "./vision-criteria.ts";
import type { TimedFrame } from "./vision-frames.ts";
import { askVision, judgeFrames } from "./vision-judge.ts";
import { correctionsForJudges } from "../../../src/search/p2p-corrections.ts";

/**
 * The vision judge against a local OpenAI-compatible server: what each turn carries (checked by the hashes of the
 * images sent), the server's image limit, the stored criteria and the response cache, and labelled failures.
 * Frames here are distinct byte strings; vision-judge.int.test.ts sends real renders.
 */
const tempDir = tempDirs("hexa-vision-");
let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const INTENT = "run forward, then stop";
const CRITERIA = ["The body moves to the right of the picture", "The body stays upright", "The body comes to rest at the end"];
const criteriaAnswer: ScriptItem = { text: JSON.stringify({ criteria: CRITERIA }) };
const approved: ScriptItem = { text: JSON.stringify({ approved: true }) };
const verdict = (score = 0.7, criteria = CRITERIA): ScriptItem => ({
  text: JSON.stringify({
    criteria: criteria.map((criterion, i) => ({ criterion, assessment: `seen ${i}`, status: i === 2 ? "not_met" : "met" })),
    intent_score: score,
    diagnosis: "Runs forward but never stops.",
    failure_tags: ["no_stop"],
  }),
});

/** 50 frames at 10 fps (5 s), each a distinct 2 KiB byte string. */
const frames = (n = 50, fill = 0): TimedFrame[] => Array.from({ length: n }, (_, i) => ({ image: Buffer.alloc(2048, (i + fill) % 256), t: 0.05 + i / 10 }));
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/** The hashes of the images a recorded request carries, in order. */
const sentImages = (i: number): string[] =>
  server!.requests[i]!.body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b: { type: string }) => b.type === "image_url")
    .map((b: { image_url: { url: string } }) => sha(Buffer.from(b.image_url.url.split(",")[1]!, "base64")));
/** The text of a recorded request's last user message. */
const userText = (i: number): string => {
  const user = [...server!.requests[i]!.body.messages].reverse().find((m) => m.role === "user") as { content: unknown };
  return Array.isArray(user.content) ? user.content.map((b: { text?: string }) => b.text ?? "").join("") : String(user.content);
};

const vision = async (script: ScriptItem[], cacheDir?: string) => {
  server = await startFakeOpenAI(script);
  const llm = LlmConfig.parse({ vision: { model: "vlm", baseURL: server.url, maxRetries: 0 }, ...(cacheDir ? { cacheDir } : {}) });
  const lines: string[] = [];
  const model = createRoleModel("vision", llm, { env: {}, auditSink: (l) => lines.push(l), limits: new EndpointLimits() });
  return { model, lines };
};

describe("the vision judge's two turns", () => {
  it("turn 1 carries the intent and the first frame only; turn 2 the criteria verbatim and every frame in order", async () => {
    const { model } = await vision([criteriaAnswer, approved, verdict()]);
    const given = frames();
    const j = await judgeFrames(model, { intent: INTENT, frames: given }, { limits: { maxImages: 64, video: false } });

    expect(j).toMatchObject({ kind: "verdict", score: 0.7, reviewRounds: 1, criteriaSource: "asked", failureTags: ["no_stop"] });
    expect(server!.requests).toHaveLength(3);
    expect(userText(0)).toContain(INTENT);
    expect(sentImages(0)).toEqual([sha(given[0]!.image)]);
    expect(sentImages(1)).toEqual([sha(given[0]!.image)]);
    expect(userText(2)).toContain(CRITERIA.map((c, i) => `${i + 1}. ${c}`).join("\n"));
    expect(sentImages(2)).toHaveLength(50);
    expect(sentImages(2)).toEqual(given.map((f) => sha(f.image)));
    expect(userText(2)).toContain("Frame 50 (t = 4.95 s):");
    if (j.kind !== "verdict") throw new Error("no verdict");
    expect(j.criteria.map((c) => c.status)).toEqual(["met", "met", "not_met"]);
    expect(j.sent).toMatchObject({ frames: 50, of: 50, trail: 0, video: false });
  });

  it("a p2p search's corrections reach the verdict turn after the criteria, never the criteria turn", async () => {
    const { model } = await vision([criteriaAnswer, approved, verdict()]);
    const corrections = correctionsForJudges([{ text: "land softer", afterIteration: 0 }]);
    await judgeFrames(model, { intent: INTENT, frames: frames(), corrections }, { limits: { maxImages: 64, video: false } });

    expect(userText(0)).not.toContain("land softer");
    expect(userText(2)).toContain('1. "land softer" (after iteration 0)');
    expect(userText(2).indexOf("land softer")).toBeGreaterThan(userText(2).indexOf(CRITERIA[2]!));
  });

  it("sends no more images than the server takes: evenly thinned, first and last kept, the trail taking half", async () => {
    const { model } = await vision([criteriaAnswer, approved, verdict(), criteriaAnswer, approved, verdict()]);
    const given = frames();
    const trail = frames(50, 100);
    const limits = { maxImages: 8, video: false };
    const j = await judgeFrames(model, { intent: INTENT, frames: given }, { limits });
    const withTrail = await judgeFrames(model, { intent: INTENT, frames: given, trail }, { limits, trail: true, dir: tempDir() });

    const picked = [0, 7, 14, 21, 28, 35, 42, 49];
    expect(sentImages(2)).toEqual(picked.map((i) => sha(given[i]!.image)));
    expect(j.kind === "verdict" && j.sent.times).toEqual(picked.map((i) => given[i]!.t));
    const halves = [0, 16, 33, 49];
    expect(sentImages(5)).toEqual([...halves.map((i) => sha(given[i]!.image)), ...halves.map((i) => sha(trail[i]!.image))]);
    expect(userText(5)).toContain("Sequence 2, the same episode with motion trails:");
    expect(withTrail).toMatchObject({ kind: "verdict", sent: { frames: 4, trail: 4, of: 50 } });
  });

  it("stores the criteria per intent and answers a second identical judgment from the cache, with no request", async () => {
    const dir = tempDir();
    const { model, lines } = await vision([criteriaAnswer, approved, verdict()], tempDir());
    const first = await judgeFrames(model, { intent: INTENT, frames: frames() }, { limits: { maxImages: 64, video: false }, dir });
    const second = await judgeFrames(model, { intent: INTENT, frames: frames() }, { limits: { maxImages: 64, video: false }, dir });

    expect(server!.requests).toHaveLength(3);
    expect(second).toEqual({ ...first, criteriaSource: "stored", reviewRounds: 0 });
    const file = criteriaFile(dir, INTENT, "vlm", undefined);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ schemaVersion: 1, intent: INTENT, model: "vlm", criteria: CRITERIA });
    const logged = lines.map((l) => AuditLine.parse(JSON.parse(l)));
    expect(logged.map((l) => l.fromCache)).toEqual([false, false, false, true]);
    expect(lines.every((l) => !l.includes("base64") && l.length < 40_000)).toBe(true);
    expect(JSON.stringify(logged[2]!.messages)).toContain(sha(frames()[49]!.image));
  });

  it("keeps revising criteria for at most three review rounds", async () => {
    const revised = ["The torso turns over once", "The feet leave the floor", "It lands on its feet", "It ends upright"];
    const notYet: ScriptItem = { text: JSON.stringify({ approved: false, criteria: revised }) };
    const { model } = await vision([criteriaAnswer, notYet, notYet, notYet, verdict(0.4, revised)]);
    const j = await judgeFrames(model, { intent: "a front flip", frames: frames(12) }, { limits: { maxImages: 64, video: false } });
    expect(j).toMatchObject({ kind: "verdict", reviewRounds: 3, score: 0.4 });
    expect(j.kind === "verdict" && j.criteria.map((c) => c.criterion)).toEqual(revised);
  });

  it("retries an unusable verdict once, naming the field, then gives a labelled failure", async () => {
    const paraphrased = verdict(0.7, ["The body moves right", ...CRITERIA.slice(1)]);
    const { model } = await vision([criteriaAnswer, approved, paraphrased, { text: '{"intent_score": 0.75}' }]);
    const j = await judgeFrames(model, { intent: INTENT, frames: frames(10) }, { limits: { maxImages: 64, video: false } });
    expect(j).toMatchObject({ kind: "failure", stage: "verdict", fault: "answer" });
    expect(userText(3)).toContain("criteria.0.criterion: must be criterion 1 copied exactly");
    expect(j.kind === "failure" && j.message).toMatch(/intent_score: must be in steps of 0.1/);
  });

  it("a server that refuses the request gives an endpoint failure naming llm.vision.maxImages", async () => {
    const { model } = await vision([criteriaAnswer, approved, { fault: "400" }]);
    const j = await judgeFrames(model, { intent: INTENT, frames: frames() }, { limits: { maxImages: 64, video: false } });
    expect(j).toMatchObject({ kind: "failure", stage: "verdict", fault: "endpoint" });
    expect(j.kind === "failure" && j.message).toContain("llm.vision.maxImages");
  });

  it("respects a server that refuses more than 8 images: llm.vision.maxImages 8 fits; the default 50 is a labelled failure", async () => {
    const replies: Record<string, string> = { vision_criteria: criteriaAnswer.text!, vision_review: approved.text!, vision_verdict: verdict().text! };
    const endpoint = await startFakeEndpoint({
      maxImages: 8,
      delayMs: 1,
      reply: (b) => replies[(b.response_format as { json_schema: { name: string } }).json_schema.name]!,
    });
    try {
      const judge = (maxImages?: number) => {
        const llm = LlmConfig.parse({ vision: { model: "vlm", baseURL: endpoint.url, maxRetries: 0, ...(maxImages ? { maxImages } : {}) } });
        const model = createRoleModel("vision", llm, { env: {}, limits: new EndpointLimits() });
        return judgeFrames(model, { intent: INTENT, frames: frames() }, { limits: llm.vision });
      };
      expect(await judge(8)).toMatchObject({ kind: "verdict", sent: { frames: 8, of: 50 } });
      expect(endpoint.requests.every((r) => JSON.stringify(r.body).split('"type":"image_url"').length - 1 <= 8)).toBe(true);
      const refused = await judge();
      expect(refused).toMatchObject({ kind: "failure", stage: "verdict", fault: "endpoint" });
      expect(refused.kind === "failure" && refused.message).toMatch(/more than 8 images.*set llm\.vision\.maxImages/);
    } finally {
      await endpoint.close();
    }
  });

  it("refuses frames and words it cannot judge, naming the field, before any request", async () => {
    const { model } = await vision([]);
    const limits = { limits: { maxImages: 8, video: false } };
    const shuffled = frames(3).reverse();
    await expect(judgeFrames(model, { intent: INTENT, frames: [] }, limits)).rejects.toThrow(/^vision judge\.frames: no frames/);
    await expect(judgeFrames(model, { intent: INTENT, frames: shuffled }, limits)).rejects.toThrow(/^vision judge\.frames\[1\]\.t: 0\.15\d* is not a time/);
    await expect(judgeFrames(model, { intent: " ", frames: frames(3) }, limits)).rejects.toThrow(/^vision judge\.intent: empty/);
    await expect(judgeFrames(model, { intent: INTENT, frames: frames(3), trail: frames(2) }, limits)).rejects.toThrow(
      /^vision judge\.trail: 2 trail frames for 3/,
    );
    expect(server!.requests).toHaveLength(0);
  });

  it("answers a question about a window of the episode from the frames in it", async () => {
    const { model } = await vision([{ text: JSON.stringify({ answer: "The torso turns forward." }) }]);
    const given = frames();
    const a = await askVision(model, { question: "Which way does it turn?", fromS: 1, toS: 2, frames: given }, { maxImages: 64, video: false });
    expect(a).toMatchObject({ kind: "answer", answer: "The torso turns forward.", sent: { frames: 10 } });
    expect(sentImages(0)).toEqual(given.filter((f) => f.t >= 1 && f.t <= 2).map((f) => sha(f.image)));
    expect(userText(0)).toContain("Which way does it turn?");
    await expect(askVision(model, { question: "?", fromS: 9, toS: 10, frames: given }, { maxImages: 64, video: false })).rejects.toThrow(
      /no frame between 9 and 10 s/,
    );
  });
});
