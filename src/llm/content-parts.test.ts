import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { turnOf } from "../../test/support/turn-of.ts";
import { SystemMessage } from "@langchain/core/messages";
import { startFakeOpenAI, type FakeOpenAI } from "../../test/support/fake-openai-server.ts";
import { tempDirs } from "../../test/support/temp-files.ts";
import { AuditLine } from "./audit-log.ts";
import { LlmConfig } from "./config.ts";
import { toRecordMessages } from "./agent-messages.ts";
import { humanWithParts, mediaPart, partsOfContent } from "./content-parts.ts";
import { EndpointLimits } from "./endpoint-limits.ts";
import { createRoleModel } from "./role-model.ts";
import { estimateInputTokens, IMAGE_TOKENS } from "./token-estimate.ts";

const tempDir = tempDirs("hexa-parts-");
let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A "frame" of 64 KiB whose bytes say which it is. */
const frame = (n: number) => Buffer.alloc(64 * 1024, n);
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

const visionModel = async (answers: number) => {
  server = await startFakeOpenAI(Array.from({ length: answers }, () => ({ text: "seen" })));
  const llm = LlmConfig.parse({ vision: { model: "vlm", baseURL: server.url }, cacheDir: tempDir() });
  const lines: string[] = [];
  const model = createRoleModel("vision", llm, { env: {}, auditSink: (l) => lines.push(l), limits: new EndpointLimits() });
  return { model, lines };
};

const ask = (frames: Buffer[]) => [
  new SystemMessage("You judge frames."),
  humanWithParts([{ type: "text", text: "Frames in order:" }, ...frames.map((f) => mediaPart(f, "image/png")), { type: "text", text: "Judge." }]),
];

describe("a user message with images through a role's model", () => {
  it("goes to the wire as ordered OpenAI content parts with inline data URLs", async () => {
    const { model } = await visionModel(1);
    const frames = [frame(1), frame(2), frame(3)];
    await turnOf(model, ask(frames));
    const user = server!.requests[0]!.body.messages[1] as { role: string; content: Array<Record<string, any>> };
    expect(user.role).toBe("user");
    expect(user.content.map((b) => b.type)).toEqual(["text", "image_url", "image_url", "image_url", "text"]);
    const sent = user.content.filter((b) => b.type === "image_url").map((b) => Buffer.from(String(b.image_url.url).split(",")[1]!, "base64"));
    expect(sent.map(sha)).toEqual(frames.map(sha));
    expect(user.content[1]!.image_url.url.startsWith("data:image/png;base64,")).toBe(true);
    expect(server!.requests[0]!.body.messages[0]).toEqual({ role: "system", content: "You judge frames." });
  });

  it("logs each image by hash, size and mime, never its bytes; the cache keys by the images' hashes", async () => {
    const { model, lines } = await visionModel(2);
    await turnOf(model, ask([frame(1), frame(2)]));
    const again = await turnOf(model, ask([frame(1), frame(2)]));
    const changed = await turnOf(model, ask([frame(1), frame(9)]));

    expect(again.fromCache).toBe(true);
    expect(changed.fromCache).toBe(false);
    expect(server!.requests).toHaveLength(2);
    const logged = lines.map((l) => AuditLine.parse(JSON.parse(l)));
    expect(lines.every((l) => l.length < 4000)).toBe(true);
    const user = logged[0]!.messages![1] as { parts: unknown[] };
    expect(user.parts[1]).toEqual({ type: "image", mime: "image/png", sha256: sha(frame(1)), bytes: 65536 });
    expect(logged[0]!.requestSha256).toBe(logged[1]!.requestSha256);
    expect(logged[2]!.requestSha256).not.toBe(logged[0]!.requestSha256);
  });

  it("estimates each image at IMAGE_TOKENS input tokens, not at the length of its bytes", () => {
    const text = [{ role: "user" as const, content: "Frames in order:Judge." }];
    expect(estimateInputTokens(toRecordMessages(ask([frame(1), frame(2)])).slice(1), []) - estimateInputTokens(text, [])).toBe(2 * IMAGE_TOKENS);
  });

  it("refuses a media part that is not an inline data URL of an image or a clip: hexa sends no URL a server would fetch", () => {
    expect(() => partsOfContent([{ type: "image_url", image_url: { url: "http://example.com/a.png" } }])).toThrow(/inline data URL/);
    expect(() => partsOfContent([{ type: "image_url", image_url: { url: "data:image/gif;base64,AAAA" } }])).toThrow(/inline data URL/);
    expect(partsOfContent([{ type: "image_url", image_url: { url: "data:image/jpeg;base64,AAAA" } }])).toMatchObject([
      { type: "image", mime: "image/jpeg", bytes: 3 },
    ]);
  });
});
