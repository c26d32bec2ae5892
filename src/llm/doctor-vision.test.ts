import { afterEach, describe, expect, it } from "vitest";
import { startFakeEndpoint, type EndpointModes, type FakeEndpoint } from "../../test/support/fake-endpoint.ts";
import { ModelConfig } from "./config.ts";
import { probeEndpoint } from "./doctor.ts";
import { doctorTable, problemsOf, recommendedYaml } from "./doctor-report.ts";

let server: FakeEndpoint | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const probed = async (modes: EndpointModes) => {
  server = await startFakeEndpoint({ delayMs: 1, models: ["vlm"], ...modes });
  const ep = { baseURL: server.url, apiKey: "k", model: "vlm", timeoutMs: 10_000 };
  const report = await probeEndpoint(ep, { contextTokens: 100, vision: true });
  const config = { ...ModelConfig.parse({ model: "vlm" }), baseURL: server.url, apiKey: "k" };
  return { report, p: { roles: ["vision" as const], config, report } };
};

/** The image counts of the chat requests that carried images, in order. */
const imageCounts = () =>
  server!.requests
    .map(
      (r) =>
        r.body.messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<{ type: string }>) : [])).filter((b) => b.type === "image_url").length,
    )
    .filter((n) => n > 0);

describe("hexa doctor's vision check", () => {
  it("finds how many images a request may carry, stopping at the first refusal, and whether video is taken", async () => {
    const { report, p } = await probed({ maxImages: 8, video: "ok" });
    expect(report.vision).toEqual({
      images: true,
      maxImages: 8,
      refusedAt: 32,
      video: true,
      refusal: expect.stringMatching(/^HTTP 400: .*more than 8 images/),
    });
    expect(imageCounts()).toEqual([1, 8, 32]);
    expect(problemsOf("vision", report)).toEqual([]);
    expect(doctorTable([p])).toMatch(/images\s+8 to 31 per request \(32 refused: HTTP 400/);
    expect(doctorTable([p])).toMatch(/video_url\s+yes/);
    expect(recommendedYaml([p])).toContain("    maxImages: 8  # 32 were refused");
    expect(recommendedYaml([p])).toContain("    video: true");
  });

  it("an endpoint that takes every count tried, and no video", async () => {
    const { report, p } = await probed({});
    expect(report.vision).toEqual({ images: true, maxImages: 64, refusedAt: null, video: false, refusal: null });
    expect(imageCounts()).toEqual([1, 8, 32, 64]);
    expect(doctorTable([p])).toMatch(/images\s+≥ 64 per request/);
    expect(recommendedYaml([p])).toContain("    maxImages: 50  # 64 were taken in one request");
  });

  it("an endpoint that takes no image: the vision role cannot work there", async () => {
    const { report } = await probed({ images: "refuse" });
    expect(report.vision).toMatchObject({ images: false, maxImages: null, refusedAt: 1 });
    expect(problemsOf("vision", report)).toEqual([expect.stringMatching(/^llm\.vision: the endpoint refused a request with one image \(got HTTP 400: /)]);
    expect(problemsOf("actor", report)).toEqual([]);
  });
});
