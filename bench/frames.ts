/**
 * Shaded MuJoCo frames per second (levels/reward-search/pictures/episode-frames.ts): half_cheetah under zero actions
 * (it never ends early, so the episode is --steps long),
 * rendered at --size (480 by default) and 10 fps of simulated time, plain and with the motion trail. The rate
 * leaves the browser's start out: (frames − 1) / (time for all frames − time for the first alone).
 * Run: npm run bench:frames -- [--steps 250] [--size 480] [--write-page]   (needs /usr/bin/chromium)
 */
import { existsSync } from "node:fs";
import { CHROMIUM, renderEpisodeFrames } from "../levels/reward-search/pictures/episode-frames.ts";
import { steppedEpisode } from "../levels/reward-search/pictures/stepped-record.ts";
import { failFlag, intFlag, parseFlags } from "./flags.ts";
import { recordPage } from "./page.ts";

recordPage("frames");

const SCRIPT = "bench/frames.ts";
const flags = parseFlags(SCRIPT, { steps: "250", size: "480" });
const STEPS = intFlag(SCRIPT, "steps", flags.steps);
const SIZE = intFlag(SCRIPT, "size", flags.size, 16);
if (!existsSync(CHROMIUM)) failFlag(`${CHROMIUM} not found: install Debian's chromium`);

const episode = await steppedEpisode({ task: "half_cheetah", steps: STEPS, act: () => [0, 0, 0, 0, 0, 0] });
const seconds = async (trail: boolean, maxFrames?: number) => {
  const t0 = performance.now();
  const r = await renderEpisodeFrames(episode.scene, episode.record, { fps: 10, size: SIZE, trail, ...(maxFrames ? { maxFrames } : {}) });
  return { s: (performance.now() - t0) / 1000, frames: r.frames.length };
};

process.stdout.write(
  `half_cheetah, ${episode.record.steps} steps (${(episode.record.steps * episode.record.header.dt).toFixed(2)} s), ${SIZE} × ${SIZE}, 10 fps\n`,
);
for (const trail of [false, true]) {
  const one = await seconds(trail, 1);
  const all = await seconds(trail);
  const rate = (all.frames - 1) / (all.s - one.s);
  process.stdout.write(
    `${trail ? "with trail" : "plain     "}: ${all.frames} frames in ${all.s.toFixed(1)} s (start and first frame ${one.s.toFixed(1)} s): ${rate.toFixed(2)} frames/s\n`,
  );
}
