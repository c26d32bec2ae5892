import { InvariantError } from "../src/errors.ts";
import type { ObservationSection, ToolResult } from "../src/family/task-env.ts";
import { cuttable, kept } from "../src/family/observation.ts";
import type { AssistantTurn, ToolCall } from "../src/llm/chat-model.ts";
import { callUsage, NO_USAGE, storedStep, sumUsage, type EpisodeUsage, type StopReason, type TrajectoryStep } from "../src/store/trajectory.ts";
import { cutMiddle } from "../src/util/cut-text.ts";
import type { Turn } from "./context.ts";
import { NUDGE } from "./prompt.ts";

/** Why an episode ended before its budget, and with what. */
interface EpisodeStop {
  reason: StopReason;
  success: boolean;
  action: unknown;
  score?: number;
  error?: string;
}

/** What the ledger asks of the episode's ports: the clock, the price of a turn and where steps are reported. */
export interface LedgerPorts {
  costOf: (turn: AssistantTurn) => number;
  now: () => number;
  onStep?: (step: TrajectoryStep) => void;
}

/**
 * One episode's record, shared by the actor's middleware (agents/middleware/): the turns as the context keeps
 * them, the trajectory's steps, the usage, and why it stopped. It lives beside the agent's graph state, not in
 * it: no checkpointer holds that state, and the record must outlive a model call that fails for good
 * (docs/ARCHITECTURE.md §5.1).
 */
export interface EpisodeLedger {
  readonly maxTurns: number;
  readonly ports: LedgerPorts;
  /** Model answers so far: every call counts as a turn (docs/spec/method.md §1.1). */
  turn: number;
  /** The latest answer, and the clock when it came (a tool's time is measured from it). */
  reply?: AssistantTurn;
  answeredAt: number;
  model: string;
  usage: EpisodeUsage;
  turns: Turn[];
  steps: TrajectoryStep[];
  pinnedTools: Set<string>;
  stop?: EpisodeStop;
  /** The error a model call failed with: the episode's outcome, unlike any other error (a broken host). */
  modelFailure?: unknown;
}

export const openLedger = (maxTurns: number, model: string, ports: LedgerPorts): EpisodeLedger => ({
  maxTurns,
  ports,
  turn: 0,
  answeredAt: 0,
  model,
  usage: { ...NO_USAGE },
  turns: [],
  steps: [],
  pinnedTools: new Set(),
});

/** Another model call may be made: the episode has not stopped and turns are left. */
export const canContinue = (l: EpisodeLedger): boolean => !l.stop && l.turn < l.maxTurns;

/** A model answer: one more turn, its usage and cost, the model the server named. */
export const recordAnswer = (l: EpisodeLedger, reply: AssistantTurn): void => {
  l.turn++;
  l.reply = reply;
  l.model = reply.model || l.model;
  l.usage = sumUsage(l.usage, callUsage(reply.usage, l.ports.costOf(reply)));
  l.answeredAt = l.ports.now();
};

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

const pushStep = (l: EpisodeLedger, step: TrajectoryStep): void => {
  const stored = storedStep(step);
  l.steps.push(stored);
  l.ports.onStep?.(stored);
};

const answered = (l: EpisodeLedger): AssistantTurn => {
  if (!l.reply) throw new InvariantError("episode ledger: a turn was recorded before any model answer");
  return l.reply;
};

/** A turn without a tool call: the nudge the model reads next (with the turn line), recorded as a failed step. */
export const recordNoCall = (l: EpisodeLedger): string => {
  const reply = answered(l);
  // A cut or unreadable answer says so, not "empty" (it may be all reasoning, or a call written as text).
  const observation = reply.problem ? `${reply.problem}. ${NUDGE}` : reply.text.trim() === "" ? `The response was empty. ${NUDGE}` : NUDGE;
  const read = withTurnLine(observation, l.turn, l.maxTurns);
  l.turns.push({ thought: reply.text, call: undefined, reply: read, pinned: false });
  pushStep(l, { turn: l.turn, thought: thoughtOf(reply), tool: "(none)", args: null, observation, ok: false, ms: 0 });
  return read;
};

/**
 * A turn whose call ran: the context's turn (only the first scene reading of each tool pinned), the step, and the
 * family's ending rule (finish, auto-finish). Returns the observation as the model reads it.
 */
export const recordCall = (l: EpisodeLedger, call: ToolCall, outcome: ToolResult): string => {
  const reply = answered(l);
  const ms = l.ports.now() - l.answeredAt;
  const pinned = outcome.ok && outcome.pinned === true && !l.pinnedTools.has(call.name);
  if (pinned) l.pinnedTools.add(call.name);
  const read = withTurnLine(outcome.observation, l.turn, l.maxTurns);
  l.turns.push({ thought: reply.text, call, reply: read, pinned, compact: replySections(call.name, outcome, l.turn, l.maxTurns) });
  pushStep(l, {
    turn: l.turn,
    thought: thoughtOf(reply),
    tool: call.name,
    args: call.args,
    observation: outcome.observation,
    ok: outcome.ok,
    ms,
    ...(outcome.spent ? { spent: outcome.spent } : {}),
  });
  if (outcome.ends) l.stop = { ...outcome.ends };
  return read;
};
