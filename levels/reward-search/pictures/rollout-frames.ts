import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../../../src/errors.ts";
import { loadTask } from "../tasks/index.ts";
import { loadPolicy } from "../trainer/policy.ts";
import { CHROMIUM, renderEpisodeFrames } from "./episode-frames.ts";
import { framesToGif, haveFfmpeg, writeFrames } from "./frame-files.ts";
import type { RolloutGifRequest } from "./rollout-gif.ts";
import { steppedEpisode } from "./stepped-record.ts";

/**
 * A trained policy's greedy rollout as shaded 3-D frames, made into the animated GIF `hexa inspect` shows
 * (docs/spec/reward-search.md §2, frames): the judges' renderer at 10 fps, at most INSPECT_FRAMES frames of
 * INSPECT_SIZE pixels, on the instance's first evaluation seed. Needs Debian's chromium and ffmpeg.
 */

const INSPECT_FPS = 10;
const INSPECT_SIZE = 240;
const INSPECT_FRAMES = 100;

export const canRenderFrames = (): boolean => existsSync(CHROMIUM) && haveFfmpeg();

export const rolloutFramesGif = async (r: RolloutGifRequest & { signal?: AbortSignal }): Promise<{ bytes: Uint8Array; frames: number; steps: number }> => {
  const task = await loadTask(r.task);
  const instance = r.instance ?? task.generate(0);
  const loaded = r.policy ? loadPolicy(r.policy) : null;
  const probe = task.makeEnv(instance, 1);
  const dim = probe.action.kind === "continuous" ? probe.action.dim : 1;
  probe.close?.();
  if (loaded && loaded.layout.obsDim !== probe.obsDim)
    throw new ConfigError(
      `the policy reads ${loaded.layout.obsDim} observation values but ${task.id} gives ${probe.obsDim}; give a policy trained on ${task.id}`,
    );
  const episode = await steppedEpisode({
    task: r.task,
    instance,
    steps: task.maxEpisodeSteps,
    act: loaded ? (obs) => loaded.act(obs, 1) : () => new Float64Array(dim),
    seed: r.seed ?? instance.evalSeeds[0]!,
  });
  const shot = await renderEpisodeFrames(episode.scene, episode.record, {
    fps: INSPECT_FPS,
    size: INSPECT_SIZE,
    trail: false,
    maxFrames: INSPECT_FRAMES,
    ...(r.signal ? { signal: r.signal } : {}),
  });
  const dir = mkdtempSync(join(tmpdir(), "hexa-frames-"));
  try {
    writeFrames(dir, shot.frames);
    const bytes = await framesToGif(dir, INSPECT_FPS, INSPECT_SIZE);
    return { bytes, frames: shot.frames.length, steps: episode.record.steps };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
