import { z } from "zod";

/**
 * What an endpoint takes besides text (hexa doctor, for the `llm.vision` role): images as `image_url` parts and
 * how many in one request, and a `video_url` part (docs/guides/judging.md, "Vision judge").
 */
export const VisionReport = z.object({
  /** One image in a request was taken. */
  images: z.boolean(),
  /** The most images one request was seen to take, of the counts tried; null when none was taken. */
  maxImages: z.number().int().nullable(),
  /** The first count refused; null when every count tried was taken. */
  refusedAt: z.number().int().nullable(),
  video: z.boolean(),
  /** The server's first refusal, cut to one line. */
  refusal: z.string().nullable(),
});
export type VisionReport = z.infer<typeof VisionReport>;

/** Image counts tried in turn, stopping at the first refused; the judge wants 50 frames for 5 s at 10 fps. */
const IMAGE_COUNTS = [1, 8, 32, 64] as const;

/** A 32 × 32 grey PNG: big enough for the image processors that refuse smaller pictures (Qwen2-VL's 28 px). */
const PROBE_PNG = "iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAIAAAD8GO2jAAAAJklEQVR42u3NMQ0AAAwDoEqv9KrYsQQMkB6LQCAQCAQCgUAg+BIMLd4AWwUPN68AAAAASUVORK5CYII=";

/**
 * Two grey 64 × 64 frames as H.264 MP4 (ffmpeg -f lavfi -i color=c=gray:s=64x64:d=0.5:r=4 -c:v libx264
 * -pix_fmt yuv420p -bsf:v filter_units=remove_types=6 -fflags +bitexact -movflags +faststart).
 */
const PROBE_MP4 = [
  "AAAAIGZ0eXBpc29tAAACAGlzb21pc28yYXZjMW1wNDEAAAMNbW9vdgAAAGxtdmhkAAAAAAAAAAAAAAAAAAAD6AAAAfQAAQAAAQAA",
  "AAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAABAAAAAAAAAAAAAAAAAABAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAgAA",
  "Alx0cmFrAAAAXHRraGQAAAADAAAAAAAAAAAAAAABAAAAAAAAAfQAAAAAAAAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAABAAAA",
  "AAAAAAAAAAAAAABAAAAAAEAAAABAAAAAAAAkZWR0cwAAABxlbHN0AAAAAAAAAAEAAAH0AAAAAAABAAAAAAHUbWRpYQAAACBtZGhk",
  "AAAAAAAAAAAAAAAAAABAAAAAIABVxAAAAAAALWhkbHIAAAAAAAAAAHZpZGUAAAAAAAAAAAAAAABWaWRlb0hhbmRsZXIAAAABf21p",
  "bmYAAAAUdm1oZAAAAAEAAAAAAAAAAAAAACRkaW5mAAAAHGRyZWYAAAAAAAAAAQAAAAx1cmwgAAAAAQAAAT9zdGJsAAAAv3N0c2QA",
  "AAAAAAAAAQAAAK9hdmMxAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAAAAEAAQABIAAAASAAAAAAAAAABDExhdmMgbGlieDI2NAAAAAAA",
  "AAAAAAAAAAAAAAAAAAAAGP//AAAANWF2Y0MBZAAK/+EAGGdkAAqs2UQmwEQAAAMABAAAAwAgPEiWWAEABmjr48siwP34+AAAAAAQ",
  "cGFzcAAAAAEAAAABAAAAFGJ0cnQAAAAAAAADEAAAAxAAAAAYc3R0cwAAAAAAAAABAAAAAgAAEAAAAAAUc3RzcwAAAAAAAAABAAAA",
  "AQAAABxzdHNjAAAAAAAAAAEAAAABAAAAAgAAAAEAAAAcc3RzegAAAAAAAAAAAAAAAgAAACMAAAAOAAAAFHN0Y28AAAAAAAAAAQAA",
  "Az0AAAA9dWR0YQAAADVtZXRhAAAAAAAAACFoZGxyAAAAAAAAAABtZGlyYXBwbAAAAAAAAAAAAAAAAAhpbHN0AAAACGZyZWUAAAA5",
  "bWRhdAAAAB9liIQAEf/+94gfMojatdyEeesVP1GIxltc+dmuhinfAAAACkGaIWxBD/6qV94=",
].join("");

type Reply = { status: number; text: string };
/** A chat request to the endpoint: the body (model filled in) and the output cap. */
export type VisionChat = (body: Record<string, unknown>, cap?: number) => Promise<Reply>;

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim().slice(0, 160);

/** Why the request was not answered (a status other than 200, or a connection the server closed), or null. */
const refused = async (chat: VisionChat, body: Record<string, unknown>): Promise<string | null> => {
  try {
    const r = await chat(body, 16);
    return r.status === 200 ? null : `HTTP ${r.status}: ${oneLine(r.text)}`;
  } catch (e) {
    return oneLine(e instanceof Error ? e.message : String(e));
  }
};

const askWith = (parts: unknown[]) => ({
  messages: [{ role: "user", content: [{ type: "text", text: "How many pictures are there? Reply with a number." }, ...parts] }],
});
const image = { type: "image_url", image_url: { url: `data:image/png;base64,${PROBE_PNG}` } };
const video = { type: "video_url", video_url: { url: `data:video/mp4;base64,${PROBE_MP4}` } };

/** Tries 1, 8, 32 and 64 images in one request, stopping at the first refusal, then one video. */
export const probeVision = async (chat: VisionChat): Promise<VisionReport> => {
  let maxImages: number | null = null;
  let refusedAt: number | null = null;
  let refusal: string | null = null;
  for (const n of IMAGE_COUNTS) {
    const why = await refused(chat, askWith(Array.from({ length: n }, () => image)));
    if (why !== null) {
      refusedAt = n;
      refusal = why;
      break;
    }
    maxImages = n;
  }
  const clip = await refused(chat, askWith([video]));
  return { images: maxImages !== null, maxImages, refusedAt, video: clip === null, refusal };
};
