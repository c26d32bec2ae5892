import { renameSync, writeFileSync } from "node:fs";
import { readPolicyFile, rolloutGif } from "./rollout-gif.ts";

/**
 * `node film-entry.mjs POLICY_JSON OUT_GIF`: the greedy rollout of a training job's policy as a GIF (inspect-draw.ts
 * runs it): shaded 3-D frames where chromium and ffmpeg are installed, else (or if they fail) the 2-D film.
 */
const [policyPath, out] = process.argv.slice(2);
if (!policyPath || !out) {
  process.stderr.write("usage: node film-entry.mjs POLICY_JSON OUT_GIF\n");
  process.exit(2);
}
/** The shaded frames' share of inspect's 120 s for a film: past it, the 2-D film is drawn instead. */
const SHADED_TIMEOUT_MS = 75_000;
const shaded = async (request: Parameters<typeof rolloutGif>[0]): Promise<Uint8Array | undefined> => {
  try {
    // Loaded here: the renderer needs playwright-core, which an install without dev dependencies lacks.
    const { canRenderFrames, rolloutFramesGif } = await import("./rollout-frames.ts");
    if (!canRenderFrames()) return undefined;
    return (await rolloutFramesGif({ ...request, signal: AbortSignal.timeout(SHADED_TIMEOUT_MS) })).bytes;
  } catch (e) {
    process.stderr.write(`no shaded frames (${e instanceof Error ? e.message : String(e)}); drawing the 2-D film\n`);
    return undefined;
  }
};
try {
  const p = readPolicyFile(policyPath);
  const request = { task: p.task, instance: p.instance, policy: p.policy };
  const gif = (await shaded(request)) ?? (await rolloutGif(request)).bytes;
  // Written whole or not at all: the drawer takes an existing file as done.
  writeFileSync(`${out}.tmp`, gif);
  renameSync(`${out}.tmp`, out);
} catch (e) {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
