import { execaSync } from "execa";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { actionOf, type EpisodeDrawer } from "../../../src/report/inspect/model.ts";
import type { EpisodeRecord } from "../../../src/store/run-records.ts";
import { renderRewardAction, rewardActionOf } from "../action.ts";
import { tasks } from "../tasks/index.ts";

/**
 * The reward-search episode view for `hexa inspect` (docs/spec/reward-search.md §2, pictures): for a MuJoCo task, the
 * greedy rollout of the committed training's policy as a GIF. The drawer is synchronous and MuJoCo loads
 * asynchronously, so the GIF is made by a child process (film-entry.mjs, a few seconds) and kept beside the
 * policy as rollout.gif, so each is made once. Episodes without a policy file (older runs, classic tasks, a
 * policy since deleted) show their reward code as text, as before.
 */

const ENTRY = fileURLToPath(new URL("./film-entry.mjs", import.meta.url));
const FILM_TIMEOUT_MS = 120_000;

/** The rollout GIF of an episode's committed policy, made on first use; undefined where there is none. */
const rolloutGifOf = (rec: EpisodeRecord): Uint8Array | undefined => {
  const policy = rewardActionOf(actionOf(rec.trajectory))?.policy;
  const task = (tasks as Record<string, { prepare?: unknown }>)[rec.level];
  if (!policy || !task?.prepare || !existsSync(policy)) return undefined;
  const gif = join(dirname(policy), "rollout.gif");
  if (!existsSync(gif)) {
    try {
      execaSync(process.execPath, [ENTRY, policy, gif], { timeout: FILM_TIMEOUT_MS, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
    } catch (e) {
      const why = (e as { stderr?: string }).stderr?.trim() || (e as Error).message;
      process.stderr.write(`hexa inspect: no rollout picture for episode ${rec.id} (${why})\n`);
      return undefined;
    }
  }
  return new Uint8Array(readFileSync(gif));
};

export const rewardSearchDrawer = (): EpisodeDrawer => {
  const animations = new Map<string, string | undefined>();
  const animation = (rec: EpisodeRecord): string | undefined => {
    if (!animations.has(rec.id)) {
      const gif = rolloutGifOf(rec);
      animations.set(rec.id, gif && `data:image/gif;base64,${Buffer.from(gif).toString("base64")}`);
    }
    return animations.get(rec.id);
  };
  return {
    drawEpisode: (rec, { animate }) => {
      const anim = animate ? animation(rec) : undefined;
      return anim ? { animation: anim } : {};
    },
    renderAction: (action) => renderRewardAction(action, 300),
    animationGif: rolloutGifOf,
  };
};
