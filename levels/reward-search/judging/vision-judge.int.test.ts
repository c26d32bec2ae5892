import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEndpoint, type FakeEndpoint } from "../../../test/support/fake-endpoint.ts";
import { LlmConfig } from "../../../src/llm/config.ts";
import { EndpointLimits } from "../../../src/llm/endpoint-limits.ts";
import { createRoleModel } from "../../../src/llm/role-model.ts";
import { CHROMIUM, type EpisodeFrames, renderEpisodeFrames } from "../pictures/episode-frames.ts";
import { framesClip } from "../pictures/frame-clip.ts";
import { FFMPEG } from "../pictures/frame-files.ts";
import { steppedEpisode } from "../pictures/stepped-record.ts";
import { judgedFrames } from "./vision-frames.ts";
import { judgeFrames } from "./vision-judge.ts";

/**
 * The vision judge on real renders: 5 s of half_cheetah at 10 fps (50 frames of 480 × 480) sent to a local
 * OpenAI-compatible server (the trail as a second sequence is checked in vision-judge.test.ts: it renders slowly). The images each request carries are checked by hash against
 * the rendered frames: the first frame alone in turn 1, every frame in order in turn 2.
 */
const ready = existsSync(CHROMIUM) && existsSync(FFMPEG);
if (!ready) console.warn(`${CHROMIUM} or ${FFMPEG} not found: vision judge render tests skipped (apt-get install -y chromium ffmpeg)`);
const suite = ready ? describe : describe.skip;

const CRITERIA = ["The body moves to the right of the picture", "The legs swing in turn", "The body stays upright"];
const replies: Record<string, string> = {
  vision_criteria: JSON.stringify({ criteria: CRITERIA }),
  vision_review: JSON.stringify({ approved: true }),
  vision_verdict: JSON.stringify({
    criteria: CRITERIA.map((criterion) => ({ criterion, assessment: "seen", status: "partially_met" })),
    intent_score: 0.3,
    diagnosis: "It twitches in place.",
    failure_tags: ["no_forward_progress"],
  }),
};
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const mediaOf = (server: FakeEndpoint, i: number, type: "image_url" | "video_url"): string[] =>
  server.requests[i]!.body.messages.flatMap((m) =>
    (Array.isArray(m.content) ? (m.content as Array<Record<string, { url: string }>>) : [])
      .filter((b) => (b.type as unknown) === type)
      .map((b) => sha(Buffer.from(b[type]!.url.split(",")[1]!, "base64"))),
  );

suite("the vision judge on rendered frames", () => {
  let rendered: EpisodeFrames;
  let server: FakeEndpoint;
  beforeAll(async () => {
    // half_cheetah never ends early: 100 steps of 0.05 s are 5 s.
    const cheetah = await steppedEpisode({ task: "half_cheetah", steps: 100, act: (_, t) => [0, 1, 2, 3, 4, 5].map((j) => Math.sin(t / 2 + j)) });
    rendered = await renderEpisodeFrames(cheetah.scene, cheetah.record, { fps: 10, size: 480, trail: false });
    server = await startFakeEndpoint({
      delayMs: 1,
      video: "ok",
      reply: (b) => replies[(b.response_format as { json_schema: { name: string } }).json_schema.name]!,
    });
  }, 180_000);
  afterAll(() => server?.close());

  const judge = (video: boolean, r: Parameters<typeof judgeFrames>[1]) => {
    const llm = LlmConfig.parse({ vision: { model: "vlm", baseURL: server.url, maxRetries: 0, maxImages: 100, video } });
    return judgeFrames(createRoleModel("vision", llm, { env: {}, limits: new EndpointLimits() }), r, { limits: llm.vision });
  };

  it("sends the first frame alone, then the criteria and the 50 frames in order", async () => {
    expect(rendered.frames).toHaveLength(50);
    const j = await judge(false, { intent: "run forward", ...judgedFrames(rendered) });

    expect(j).toMatchObject({ kind: "verdict", score: 0.3, sent: { frames: 50, trail: 0, of: 50, video: false } });
    expect(server.requests).toHaveLength(3);
    expect(mediaOf(server, 0, "image_url")).toEqual([sha(rendered.frames[0]!)]);
    expect(JSON.stringify(server.requests[0]!.body.messages)).toContain("run forward");
    const sent = mediaOf(server, 2, "image_url");
    expect(sent).toEqual(rendered.frames.map(sha));
    expect(new Set(sent).size).toBe(50);
    expect(JSON.stringify(server.requests[2]!.body.messages)).toContain(`1. ${CRITERIA[0]}`);
  });

  it("sends one MP4 clip of the frames where the server takes video", async () => {
    const clip = { frames: await framesClip(rendered.frames, 10) };
    expect(clip.frames.subarray(4, 8).toString("latin1")).toBe("ftyp");
    const before = server.requests.length;
    const j = await judge(true, { intent: "run forward, on video", ...judgedFrames(rendered), clip });

    expect(j).toMatchObject({ kind: "verdict", sent: { video: true, frames: 50 } });
    const verdictCall = before + 2;
    expect(mediaOf(server, verdictCall, "video_url")).toEqual([sha(clip.frames)]);
    expect(mediaOf(server, verdictCall, "image_url")).toEqual([]);
  }, 60_000);
});
