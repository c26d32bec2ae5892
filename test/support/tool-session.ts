import { createInstance } from "../../levels/interphyre/instance.ts";
import { readCertified } from "../../levels/interphyre/certified-seeds.ts";
import type { Action } from "../../levels/interphyre/world/simulation.ts";
import { callInterphyreTool, InterphyreSession, type DispatchOutcome } from "../../levels/interphyre/tools/interphyre-tool.ts";
import { tools } from "../../levels/interphyre/tools/index.ts";

/**
 * A session on a certified seed of `level` with its certified solution: a placement known to succeed within
 * 1000 steps (at `successStep`), so tests need no outcome copied from a run.
 */
export const solvedSession = (level: string, index = 0, horizon?: number) => {
  const entry = readCertified(level)?.seeds[index];
  if (!entry) throw new Error(`no certified seed #${index} for ${level}; run hexa levels certify ${level}`);
  const [x, y, radius] = entry.solution;
  const solution: Action = { x, y, radius };
  return { session: new InterphyreSession(createInstance(level, entry.seed), horizon), solution, successStep: entry.successStep };
};

export const call = (session: InterphyreSession, name: string, args: unknown = {}): DispatchOutcome =>
  callInterphyreTool(Object.values(tools), session, name, args);

/** The structured result of a call that must succeed. */
export const resultOf = <T>(outcome: DispatchOutcome): T => {
  if (!outcome.ok) throw new Error(`${outcome.tool} failed: ${outcome.error}`);
  return outcome.result as T;
};

/** The error of a call that must fail, after checking it came back as an observation. */
export const errorOf = (outcome: DispatchOutcome): string => {
  if (outcome.ok) throw new Error(`${outcome.tool} unexpectedly succeeded: ${outcome.observation}`);
  if (!outcome.observation.startsWith("ERROR: ")) throw new Error(`error observation lacks its prefix: ${outcome.observation}`);
  return outcome.error;
};

/** Observations must fit a few hundred tokens. */
export const OBSERVATION_MAX_CHARS = 2500;

/** A placement in down_to_earth that fails: a small ball dropped at the wall farthest from the platform. */
export const missPlacement = (session: InterphyreSession): Action => {
  const platform = session.instance.scene.platform!;
  return { x: platform.x > 0 ? -4.5 : 4.5, y: 4.5, radius: 0.3 };
};
