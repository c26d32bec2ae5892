import { z } from "zod";
import type { LevelInstance } from "../instance.ts";
import { HEXA_HARNESS_HORIZON_STEPS } from "../world/constants.ts";
import { checkPlacement } from "../world/placement.ts";
import type { Rng } from "../../../src/util/rng.ts";
import type { Action } from "../world/simulation.ts";
import type { CreateEngine } from "../world/engine.ts";
import { callInterphyreTool, InterphyreSession, type DispatchOutcome } from "../tools/interphyre-tool.ts";
import { toolSet } from "../tools/index.ts";
import { genericCandidates, type Candidate } from "./candidates.ts";
import { hintCandidates, type HeuristicHint } from "./hints.ts";
import { goalGap, nearMissScore, Search } from "./search.ts";
import { countedTurns, NO_USAGE, TRAJECTORY_SCHEMA_VERSION, type StopReason, type Trajectory, type TrajectoryStep } from "../../../src/store/trajectory.ts";

export { HeuristicHint } from "./hints.ts";

const HEURISTIC_AGENT = "heuristic (no LLM)";
const HEURISTIC_MODEL = "none (heuristic)";

export interface HeuristicOptions {
  instance: LevelInstance;
  /** Turn budget T; every tool call is one turn (docs/spec/method.md §1.1). */
  maxTurns?: number;
  horizon?: number;
  /** The engine every rollout runs on (default planck). */
  engine?: CreateEngine;
  rng: Rng;
  /** Wall clock in ms, for the steps' tool times and the episode's wall time. */
  now: () => number;
  hints?: readonly HeuristicHint[];
  /**
   * predict_first_contact screens before the first explorations' rollouts; a miss (first contact static or
   * none) skips that rollout. Default 0: every call is a turn, and a rollout both reports the first contacts
   * and may succeed, so screening cost about one turn per screen on the bench without raising success.
   */
  screens?: number;
}

const Pose = z.object({ x: z.number(), y: z.number(), angle: z.number() });
const RolloutResult = z.object({ success: z.boolean(), longest_goal_contact_s: z.number(), final: z.record(z.string(), Pose) });
const PartialResult = z.object({ success: z.boolean(), objects: z.record(z.string(), Pose) });
const ContactResult = z.object({ contact: z.boolean(), object: z.string().optional() });
const FinishResult = z.object({ success: z.boolean() });

const SUCCESS_SCORE = 100;
/** Explorations before any refinement, and refinements per exploration once there is a near miss. */
const MIN_EXPLORED = 3;
const REFINES_AFTER_PROGRESS = 1;
const REFINES_AFTER_CONTACT = 3;
const xyr = (a: Action) => `(x=${a.x.toFixed(2)}, y=${a.y.toFixed(2)}, r=${a.radius.toFixed(2)})`;
const args = (a: Action) => ({ x: a.x, y: a.y, radius: a.radius });

/**
 * The smallest ball in a corner, a bottom one first (it has nowhere to fall): as close to "no action" as a
 * placement tool allows. Certification checks that no corner ball solves a seed.
 */
const probeAction = (inst: LevelInstance): Action | undefined => {
  const radius = inst.bounds.radius[0];
  const corners = [-4.8, 4.8].flatMap((y) => [-4.8, 4.8].map((x) => ({ x, y, radius })));
  return corners.find((c) => checkPlacement(inst.scene, c, inst.bounds).ok);
};

type Ending = { kind: "success" | "finish"; success: boolean; action: Action } | { kind: "budget" };

/** The episode's tool calls: each is one turn, recorded as a step with its tool time. */
interface Turns {
  readonly steps: TrajectoryStep[];
  call(thought: string, tool: string, args: unknown): DispatchOutcome;
  /** Turns left of the budget. */
  left(): number;
}

const episodeTurns = (opts: { instance: LevelInstance; horizon: number; engine: CreateEngine | undefined; maxTurns: number; now: () => number }): Turns => {
  const { now } = opts;
  const tools = toolSet("extended");
  const session = new InterphyreSession(opts.instance, opts.horizon, opts.engine);
  const steps: TrajectoryStep[] = [];
  return {
    steps,
    call: (thought, tool, a) => {
      const t0 = now();
      const out = callInterphyreTool(tools, session, tool, a);
      steps.push({ turn: steps.length + 1, thought, tool, args: a, observation: out.observation, ok: out.ok, ms: now() - t0 });
      return out;
    },
    left: () => opts.maxTurns - steps.length,
  };
};

/** One episode in play: the level, its turns, the search's memory and how far exploring and screening have gone. */
interface Episode {
  inst: LevelInstance;
  horizon: number;
  rng: Rng;
  turns: Turns;
  search: Search;
  explored: number;
  refinesInRow: number;
  /** predict_first_contact screens left. */
  screens: number;
}

/** Reads the level, then probes the scene nearly left alone: its goal gap is the baseline a placement must beat. */
const lookAndProbe = (e: Episode): void => {
  const { inst, turns, search } = e;
  turns.call(`Read the level ${inst.level}: its objects, the goal pair ${inst.goal.join("–")} and the placement bounds.`, "get_level_state", {});
  const probe = probeAction(inst);
  if (!probe || turns.left() <= 2) return;
  const thought = `Probe the scene nearly left alone (a ${probe.radius} ball in a corner ${xyr(probe)}): the goal pair's final gap is the baseline to beat.`;
  const out = turns.call(thought, "simulate_partial", { ...args(probe), stop_step: e.horizon });
  if (!out.ok) return;
  const r = PartialResult.parse(out.result);
  search.baseline = r.success ? SUCCESS_SCORE : -goalGap(inst, r.objects);
  search.record(probe, search.baseline, "probe");
};

/** The next placement to try: explorations first, then, after a near miss, refinements alternating with them. */
const nextCandidate = (e: Episode): { c: Candidate; refining: boolean } | undefined => {
  const { search, rng } = e;
  const best = search.ranked()[0];
  // Once a goal contact was held, refining pays more than exploring; with mere progress, alternate.
  const quota = best && best.score >= 10 ? REFINES_AFTER_CONTACT : REFINES_AFTER_PROGRESS;
  const refining = search.progress() && e.explored >= MIN_EXPLORED && (e.refinesInRow < quota || e.turns.left() <= 2);
  e.refinesInRow = refining ? e.refinesInRow + 1 : 0;
  const c = refining ? (search.refine(rng) ?? search.explore()) : (search.explore() ?? search.refine(rng));
  return c ? { c, refining } : undefined;
};

/** The last turn (or a probe that already succeeded): commits the best success, else one more candidate, with finish. */
const commitWithFinish = (e: Episode): Ending => {
  const best = e.search.ranked()[0];
  const pick = best && best.score >= SUCCESS_SCORE ? undefined : nextCandidate(e);
  const action = pick?.c.action ?? best?.action;
  if (!action) return { kind: "budget" };
  const why = pick
    ? `last turn, so commit ${pick.refining ? "a refinement" : "an untested placement"}: ${pick.c.why}`
    : "the probe already succeeded, so commit it";
  const out = e.turns.call(
    `${why} ${xyr(action)}.`.replace(/^./, (c) => c.toUpperCase()),
    "finish",
    args(action),
  );
  return out.ok ? { kind: "finish", success: FinishResult.parse(out.result).success, action } : { kind: "budget" };
};

/** False when a screen finds that the candidate first hits nothing that moves (the candidate is then marked tried). */
const passesScreen = (e: Episode, c: Candidate): boolean => {
  const { inst, turns } = e;
  const out = turns.call(`Screen before a rollout: does ${c.why} ${xyr(c.action)} first hit something that moves?`, "predict_first_contact", args(c.action));
  const r = out.ok ? ContactResult.parse(out.result) : undefined;
  if (r?.contact && inst.scene[r.object ?? ""]?.dynamic) return true;
  e.search.record(c.action, -Infinity, c.family);
  return false;
};

/** Tests one candidate with a full rollout (screened first while screens last): true when it succeeded. */
const tryCandidate = (e: Episode, { c, refining }: { c: Candidate; refining: boolean }): boolean => {
  const { inst, turns, search } = e;
  if (!refining) e.explored++;
  if (!refining && e.screens > 0 && turns.left() > 2) {
    e.screens--;
    if (!passesScreen(e, c)) return false;
  }
  const out = turns.call(`${refining ? "Refine" : "Test"}: ${c.why} ${xyr(c.action)}.`, "simulate_action", args(c.action));
  if (!out.ok) {
    search.record(c.action, -Infinity, c.family);
    return false;
  }
  const r = RolloutResult.parse(out.result);
  if (r.success) return true;
  search.record(c.action, nearMissScore(inst, r.longest_goal_contact_s, r.final), c.family);
  return false;
};

/** Plays the turns after the probe until a rollout succeeds, the last turn commits with finish, or nothing is left to try. */
const playTurns = (e: Episode): Ending => {
  while (e.turns.left() > 0) {
    const best = e.search.ranked()[0];
    if (e.turns.left() === 1 || (best && best.score >= SUCCESS_SCORE)) return commitWithFinish(e);
    const pick = nextCandidate(e);
    if (!pick) break;
    if (tryCandidate(e, pick)) return { kind: "success", success: true, action: pick.c.action };
  }
  return { kind: "budget" };
};

/**
 * One episode of the heuristic experimentalist: look at the level, probe the nearly untouched scene with a
 * partial simulation, then test hinted and generic placements (pre-filtered by the local placement check)
 * with full rollouts, alternating with refinements around the best near miss; the last turn commits one
 * more candidate with finish. Deterministic for a given instance, rng seed and hints.
 */
export const runHeuristicEpisode = (opts: HeuristicOptions): Trajectory => {
  const { instance: inst, maxTurns = 25, horizon = HEXA_HARNESS_HORIZON_STEPS, engine, rng, now, hints = [] } = opts;
  const start = now();
  const turns = episodeTurns({ instance: inst, horizon, engine, maxTurns, now });
  const search = new Search(inst, hints, [...hintCandidates(inst, hints, rng).map((c) => ({ ...c, family: "hint" })), ...genericCandidates(inst, rng)]);
  const episode: Episode = { inst, horizon, rng, turns, search, explored: 0, refinesInRow: 0, screens: opts.screens ?? 0 };
  lookAndProbe(episode);
  const ending = playTurns(episode);

  const success = ending.kind !== "budget" && ending.success;
  const stopReason: StopReason = ending.kind;
  return {
    schemaVersion: TRAJECTORY_SCHEMA_VERSION,
    level: inst.level,
    seed: inst.seed,
    agent: HEURISTIC_AGENT,
    model: HEURISTIC_MODEL,
    success,
    turns: countedTurns(success, turns.steps.length, maxTurns),
    maxTurns,
    action: ending.kind === "budget" ? null : ending.action,
    steps: turns.steps,
    usage: NO_USAGE,
    wallMs: now() - start,
    stopReason,
  };
};
