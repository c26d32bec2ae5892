import { z } from "zod";
import { InvariantError } from "../src/errors.ts";
import type { ObservationSection, ToolResult } from "../src/family/task-env.ts";
import { cuttable, kept } from "../src/family/observation.ts";
import type { AssistantTurn, ToolCall } from "../src/llm/chat-model.ts";
import { callUsage, NO_USAGE, storedStep, sumUsage, type EpisodeUsage, type StopReason, type TrajectoryStep } from "../src/store/trajectory.ts";
import { cutMiddle } from "../src/util/cut-text.ts";
import { NUDGE } from "./prompt.ts";

/** Why an episode ended before its budget, and with what. */
export interface EpisodeStop {
  reason: StopReason;
  success: boolean;
  action: unknown;
  score?: number;
  error?: string;
}

/**
 * The episode's record (docs/ARCHITECTURE.md §5.1): model answers so far (every call counts as a turn,
 * docs/spec/method.md §1.1), the clock when the latest came (a tool's time is measured from it), the model the
 * server named, the usage, the trajectory's steps, and why it stopped.
 */
export interface EpisodeRecord {
  turn: number;
  answeredAt: number;
  servedModel: string;
  usage: EpisodeUsage;
  steps: TrajectoryStep[];
  stop?: EpisodeStop;
}

/**
 * The record as one field of the actor agent's graph state, `episode`, beside its messages: hexa's middleware
 * write it, a user's reads it by declaring this schema. One field, since langchain parses each middleware's
 * fields on every hook and langgraph carries each as a channel; its values are hexa's own, so not parsed again.
 */
export const EpisodeStateSchema = z.object({ episode: z.custom<EpisodeRecord>() });

/**
 * What a record is made as: an object of its own class, not a plain one, since langgraph copies every plain object
 * and array of the state it hands the tool node, at every call, and the steps grow with the episode.
 */
class RecordObject implements EpisodeRecord {
  turn: number;
  answeredAt: number;
  servedModel: string;
  usage: EpisodeUsage;
  steps: TrajectoryStep[];
  declare stop?: EpisodeStop;
  constructor(r: EpisodeRecord) {
    this.turn = r.turn;
    this.answeredAt = r.answeredAt;
    this.servedModel = r.servedModel;
    this.usage = r.usage;
    this.steps = r.steps;
    if (r.stop) this.stop = r.stop;
  }
}

const recordOf = (r: EpisodeRecord): EpisodeRecord => new RecordObject(r);

/** The record an episode starts from, the model as configured until a server names its own. */
export const openEpisode = (model: string): EpisodeRecord => recordOf({ turn: 0, answeredAt: 0, servedModel: model, usage: { ...NO_USAGE }, steps: [] });

/** The record stopped, for `stop`'s reason. */
export const stopped = (s: EpisodeRecord, stop: EpisodeStop): EpisodeRecord => recordOf({ ...s, stop });

/** What the record asks of the episode: its budget, the clock, the price of a turn and where steps are reported. */
export interface EpisodeRules {
  maxTurns: number;
  costOf: (turn: AssistantTurn) => number;
  now: () => number;
  onStep?: (step: TrajectoryStep) => void;
}

/** Another model call may be made: the episode has not stopped and turns are left. */
export const canContinue = (s: EpisodeRecord, maxTurns: number): boolean => !s.stop && s.turn < maxTurns;

/** A model answer: one more turn, its usage and cost, the model the server named. */
export const answered = (s: EpisodeRecord, reply: AssistantTurn, r: EpisodeRules): EpisodeRecord =>
  recordOf({
    ...s,
    turn: s.turn + 1,
    servedModel: reply.model || s.servedModel,
    usage: sumUsage(s.usage, callUsage(reply.usage, r.costOf(reply))),
    answeredAt: r.now(),
  });

/**
 * A reasoning model's reasoning (reply.reasoning) is kept in the trajectory's thought after the answer's text (so a
 * reader that cuts the thought keeps the answer; agents/evolver-trajectory.ts splits at the marker), cut to head +
 * tail like an old observation, and never sent back: the context keeps only the answer's text.
 */
const REASONING_HEAD = 1500;
const REASONING_TAIL = 500;

const thoughtOf = (reply: AssistantTurn): string =>
  reply.reasoning
    ? [reply.text, `[reasoning] ${cutMiddle(reply.reasoning, REASONING_HEAD, REASONING_TAIL)}`].filter((t) => t.trim() !== "").join("\n\n")
    : reply.text;

/**
 * The observation as the model reads it, after the turn count: the budget is in the system prompt, but a model
 * deep in an episode loses count (method.md §9: prompts say what the harness enforces). Trajectories keep the
 * tool's own text.
 */
const turnLine = (turn: number, maxTurns: number): string => `[turn ${turn} of ${maxTurns} used; ${maxTurns - turn} left]`;

const withTurnLine = (observation: string, turn: number, maxTurns: number): string => `${turnLine(turn, maxTurns)}\n${observation}`;

/**
 * The reply's sections for compaction: the turn line kept, then the family's sections, or the observation as one
 * cuttable text. Sections that do not join to the observation are a family's bug.
 */
const replySections = (tool: string, outcome: ToolResult, turn: number, maxTurns: number): ObservationSection[] => {
  const body = outcome.compact ?? [cuttable(outcome.observation)];
  if (body.map((s) => s.text).join("\n") !== outcome.observation) {
    throw new InvariantError(`tool ${tool}: its compact sections do not join to its observation`);
  }
  return [kept(turnLine(turn, maxTurns)), ...body];
};

/** The steps with one more, reported as it is stored. */
const withStep = (s: EpisodeRecord, step: TrajectoryStep, r: EpisodeRules): EpisodeRecord => {
  const stored = storedStep(step);
  r.onStep?.(stored);
  return recordOf({ ...s, steps: [...s.steps, stored] });
};

/** A turn without a tool call: the nudge the model reads next (with the turn line), and the failed step. */
export const noCallTurn = (s: EpisodeRecord, reply: AssistantTurn, r: EpisodeRules): { read: string; episode: EpisodeRecord } => {
  // A cut or unreadable answer says so, not "empty" (it may be all reasoning, or a call written as text).
  const observation = reply.problem ? `${reply.problem}. ${NUDGE}` : reply.text.trim() === "" ? `The response was empty. ${NUDGE}` : NUDGE;
  const read = withTurnLine(observation, s.turn, r.maxTurns);
  return { read, episode: withStep(s, { turn: s.turn, thought: thoughtOf(reply), tool: "(none)", args: null, observation, ok: false, ms: 0 }, r) };
};

/** A turn whose call ran, as the record and the context keep it. */
interface CallTurn {
  /** The observation as the model reads it. */
  read: string;
  /** The first scene reading of its tool: kept whole however old (docs/spec/method.md §1.2). */
  pinned: boolean;
  /** The reply's sections for compaction. */
  compact: ObservationSection[];
  /** The record with the step, and stopped when the family's rule (finish, auto-finish) says this call ended it. */
  episode: EpisodeRecord;
}

/** A turn whose call ran; `pinnedTools` are the tools whose first scene reading the context already pins. */
export const callTurn = (
  s: EpisodeRecord,
  reply: AssistantTurn,
  call: ToolCall,
  outcome: ToolResult,
  pinnedTools: ReadonlySet<string>,
  r: EpisodeRules,
): CallTurn => {
  const ms = r.now() - s.answeredAt;
  const pinned = outcome.ok && outcome.pinned === true && !pinnedTools.has(call.name);
  const step: TrajectoryStep = {
    turn: s.turn,
    thought: thoughtOf(reply),
    tool: call.name,
    args: call.args,
    observation: outcome.observation,
    ok: outcome.ok,
    ms,
    ...(outcome.spent ? { spent: outcome.spent } : {}),
  };
  return {
    read: withTurnLine(outcome.observation, s.turn, r.maxTurns),
    pinned,
    compact: replySections(call.name, outcome, s.turn, r.maxTurns),
    episode: outcome.ends ? stopped(withStep(s, step, r), { ...outcome.ends }) : withStep(s, step, r),
  };
};
