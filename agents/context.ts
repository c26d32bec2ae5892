import { HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ObservationSection } from "../src/family/task-env.ts";
import { assistantMessage } from "../src/llm/agent-messages.ts";
import type { Message, ToolCall } from "../src/llm/chat-model.ts";
import { cutMiddle } from "../src/util/cut-text.ts";
import { DEFAULT_MAX_REQUEST_CHARS } from "./actor-config.ts";
import { compactObservation, waterFill } from "./compact-observation.ts";

/** One turn as the actor saw it: the model's message and what went back to it. */
export interface Turn {
  thought: string;
  /** The executed call (only the first of several), or undefined when the model made none. */
  call: ToolCall | undefined;
  /** The tool's observation, or the nudge after a turn without a call. */
  reply: string;
  /** Scene information stays verbatim however old (the first get_level_state, describe_scene_geometry). */
  pinned: boolean;
  /** The reply as the family's sections (what compaction keeps whole); absent: the whole reply may be cut. */
  compact?: readonly ObservationSection[];
}

/**
 * `context` (ours): old observations compacted only while the request is too long, the first scene readings pinned;
 * `paper`: every old observation compacted, scene readings included, as the paper's harness did; `paper-open-weight`:
 * every old observation compacted but the first scene readings pinned, as the paper's open-weight setting did.
 */
type CompactionMode = "context" | "paper" | "paper-open-weight";

export interface CompactionOptions {
  keepTurns: number;
  /** An old observation's cuttable parts keep about head + tail characters; its kept sections stay whole. */
  head: number;
  tail: number;
  /** Cap on the request: JSON.stringify of its messages in hexa's record form (src/llm/chat-model.ts); default DEFAULT_MAX_REQUEST_CHARS. */
  maxChars?: number;
  /** Default `context`. */
  mode?: CompactionMode;
  /** `context` mode: old observations are compacted, oldest first, while the request is longer; default maxChars / 2. */
  compactFrom?: number;
}

/** The three texts of a turn that can grow without bound: the thought, the call's arguments, the reply. */
interface Pieces {
  thought: string;
  /** The call's arguments as sent: raw text when they did not parse, else their JSON. */
  args: string;
  reply: string;
}

/** Messages of the request and what they add to JSON.stringify of the whole: each one plus its comma. */
interface Rendered {
  measured: readonly Message[];
  cost: number;
}

const costOf = (messages: readonly Message[]): number => messages.reduce((s, m) => s + JSON.stringify(m).length + 1, 0);

const rendered = (measured: Message[]): Rendered => ({ measured, cost: costOf(measured) });

const argText = (call: ToolCall): string => (call.argsError ? call.rawArgs : (JSON.stringify(call.args) ?? ""));

const piecesOf = (t: Turn): Pieces => ({ thought: t.thought, args: t.call ? argText(t.call) : "", reply: t.reply });

/** The call with its arguments replaced by `args` when they differ (cut): a marked object, raw and parsed alike. */
const callWith = (call: ToolCall, args: string): ToolCall => {
  if (args === argText(call)) return call;
  if (call.argsError) return { ...call, rawArgs: args };
  const cut = { truncated_arguments: args };
  return { ...call, args: cut, rawArgs: JSON.stringify(cut) };
};

const render = (t: Turn, p: Pieces): Rendered =>
  rendered(
    t.call
      ? [
          { role: "assistant", content: p.thought, toolCalls: [callWith(t.call, p.args)] },
          { role: "tool", content: p.reply, toolCallId: t.call.id, name: t.call.name },
        ]
      : [
          { role: "assistant", content: p.thought, toolCalls: [] },
          { role: "user", content: p.reply },
        ],
  );

/** A measured message as langchain's message to the model (the recorded calls kept exactly, src/llm/agent-messages.ts). */
const langchainMessage = (m: Message): BaseMessage => {
  switch (m.role) {
    case "system":
      return new SystemMessage(m.content);
    case "user":
      return new HumanMessage(m.content);
    case "assistant":
      return assistantMessage(m.content, m.toolCalls);
    case "tool":
      return new ToolMessage({ content: m.content, tool_call_id: m.toolCallId, name: m.name });
  }
};

const CAP_NOTE = (n: number) => ` … [${n} characters cut to fit the request cap] … `;

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;

/** text with head (2/3) and tail (1/3) of `keep` characters around a note; never splits a surrogate pair. */
const keepAround = (text: string, keep: number): string => {
  let h = Math.ceil((keep * 2) / 3);
  let tStart = text.length - (keep - h);
  if (h > 0 && isHighSurrogate(text.charCodeAt(h - 1))) h--;
  if (tStart < text.length && tStart > 0 && isHighSurrogate(text.charCodeAt(tStart - 1))) tStart++;
  return `${text.slice(0, h)}${CAP_NOTE(tStart - h)}${text.slice(tStart)}`;
};

/** The text cut in the middle so that its JSON string body is at most `room` characters ("" when nothing fits). */
const fitText = (text: string, room: number): string => {
  const jsonBody = (s: string) => JSON.stringify(s).length - 2;
  if (jsonBody(text) <= room) return text;
  if (jsonBody(CAP_NOTE(text.length)) > room) return "";
  // The longest kept part that fits, by bisection: escapes make the JSON length uneven in the kept count.
  let lo = 0;
  let hi = Math.min(text.length, room);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (jsonBody(keepAround(text, mid)) <= room) lo = mid;
    else hi = mid - 1;
  }
  return keepAround(text, lo);
};

/** A smallest useful turn: below this a cut turn says nothing and is better dropped. */
const MIN_TURN_CHARS = 400;

/** The turn cut to at most `room` characters (its cost), or undefined when it cannot usefully fit. */
const squeeze = (t: Turn, p: Pieces, room: number): Rendered | undefined => {
  if (room < MIN_TURN_CHARS) return undefined;
  const empty = render(t, { thought: "", args: t.call ? "{}" : "", reply: "" }).cost;
  // Parsed arguments are sent twice (args and rawArgs), so each of their characters costs about two.
  const weights = [1, t.call && !t.call.argsError ? 2 : 1, 1];
  const lengths = [p.thought.length, p.args.length, p.reply.length].map((n, i) => n * weights[i]!);
  let budget = room - empty;
  for (let tries = 0; tries < 12 && budget > 0; tries++) {
    const shares = waterFill(lengths, budget);
    const [thought, args, reply] = shares.map((n, i) => Math.floor(n / weights[i]!));
    const messages = render(t, { thought: fitText(p.thought, thought!), args: fitText(p.args, args!), reply: fitText(p.reply, reply!) });
    const got = messages.cost;
    if (got <= room) return messages;
    // Escapes make a character cost up to six; scale what was handed out (not the budget, which may exceed
    // every piece's length) by how far over it came, and a little more.
    const given = shares.reduce((s, n) => s + n, 0);
    budget = Math.floor((given * (room - empty)) / Math.max(1, got - empty)) - 16;
  }
  return undefined;
};

const dropNote = (n: number, cap: number): Rendered =>
  rendered([{ role: "user", content: `[${n} earlier turn${n === 1 ? "" : "s"} cut to keep the request under ${cap} characters]` }]);

/** A turn's texts and its messages as rendered from them. */
interface Shown {
  pieces: Pieces;
  rendered: Rendered;
}

/** A request over the cap, and what cutting it to the cap needs to know of its turns. */
interface OverCap {
  turns: readonly Turn[];
  /** Each turn as it is without the cap (old observations compacted as far as `compactFrom` asked). */
  usual: readonly Shown[];
  leadCost: number;
  cap: number;
  recent: (i: number) => boolean;
  old: (i: number) => boolean;
  pinned: (i: number) => boolean;
  cut: (text: string) => string;
  compactedReply: (t: Turn) => string;
}

/**
 * The turns of a request over the cap, cut to it (docs/spec/method.md §1.2): every old observation compacted and
 * older turns' thoughts and arguments cut to head + tail; if that is not enough, the newest turns keep as much as
 * fits (pinned scene turns first), the turn at the edge is cut to the room left, and older ones are dropped, with
 * a note saying how many first.
 */
const cutToCap = (r: OverCap): Rendered[] => {
  const { turns, cap } = r;
  const compact = turns.map((t, i): Pieces => {
    const p = r.usual[i]!.pieces;
    if (r.recent(i)) return p;
    return { thought: r.cut(p.thought), args: r.cut(p.args), reply: r.old(i) ? r.compactedReply(t) : p.reply };
  });
  const cutTurns = turns.map((t, i) => (r.recent(i) ? r.usual[i]!.rendered : render(t, compact[i]!)));
  if (1 + r.leadCost + cutTurns.reduce((s, c) => s + c.cost, 0) <= cap) return cutTurns;
  const chosen: (Rendered | undefined)[] = turns.map(() => undefined);
  let room = cap - 1 - r.leadCost - dropNote(turns.length, cap).cost;
  const pinnedTurns = turns.flatMap((_, i) => (r.pinned(i) ? [i] : []));
  const pinnedCost = pinnedTurns.reduce((s, i) => s + cutTurns[i]!.cost, 0);
  if (pinnedCost <= room / 2) {
    for (const i of pinnedTurns) chosen[i] = cutTurns[i];
    room -= pinnedCost;
  }
  for (let i = turns.length - 1; i >= 0; i--) {
    if (chosen[i]) continue;
    const c = cutTurns[i]!.cost;
    if (c <= room) {
      chosen[i] = cutTurns[i];
      room -= c;
      continue;
    }
    // The turn at the edge gets the room left; everything older (but pinned turns kept above) is dropped.
    chosen[i] = squeeze(turns[i]!, compact[i]!, room);
    break;
  }
  const kept = chosen.filter((m): m is Rendered => m !== undefined);
  const dropped = chosen.length - kept.length;
  return [...(dropped > 0 ? [dropNote(dropped, cap)] : []), ...kept];
};

/**
 * The request's messages after the system prompt, built from the agent's turns (docs/spec/method.md §1.2): the task,
 * then every turn. Old observations (before the last `keepTurns` turns, unpinned; nothing is pinned in `paper`
 * mode) are compacted by their structure: always in the two paper modes, and in `context` mode oldest first only
 * while the request is longer than `compactFrom`. The whole request, the system prompt included, is capped at
 * `maxChars`: over it, older thoughts and arguments are cut to head + tail too; if that is not enough, the newest
 * turns keep as much as fits (pinned scene turns first), the turn at the edge is cut to the room left, and older
 * ones are dropped, with a note saying how many.
 *
 * A builder keeps what it made of each turn (its texts, their record form and its size) for as long as the turn
 * object lives: the agent's turns are the same objects from one request to the next (agents/agent-turns.ts), so a
 * turn is rendered and measured once, and again only when its reply is compacted.
 */
export const requestBuilder = (o: CompactionOptions) => {
  const cap = o.maxChars ?? DEFAULT_MAX_REQUEST_CHARS;
  const from = Math.min(cap, o.compactFrom ?? Math.floor(cap / 2));
  const always = o.mode === "paper" || o.mode === "paper-open-weight";
  const compactReply = (t: Turn) => compactObservation(t.compact ?? [{ text: t.reply, keep: false }], o.head + o.tail);
  const cut = (text: string) => cutMiddle(text, o.head, o.tail);

  const whole = new WeakMap<Turn, Shown>();
  const compacted = new WeakMap<Turn, Shown>();
  const shown = (cache: WeakMap<Turn, Shown>, t: Turn, pieces: () => Pieces): Shown => {
    const had = cache.get(t);
    if (had) return had;
    const p = pieces();
    const made = { pieces: p, rendered: render(t, p) };
    cache.set(t, made);
    return made;
  };
  const wholeOf = (t: Turn) => shown(whole, t, () => piecesOf(t));
  const compactedOf = (t: Turn) => shown(compacted, t, () => ({ ...piecesOf(t), reply: compactReply(t) }));

  let lead: { system: string; task: string; cost: number } | undefined;
  const leadCostOf = (system: string, task: string) => {
    if (lead?.system !== system || lead.task !== task) {
      const cost = costOf([
        { role: "system", content: system },
        { role: "user", content: task },
      ]);
      lead = { system, task, cost };
    }
    return lead.cost;
  };

  return (system: string, task: string, turns: readonly Turn[]): BaseMessage[] => {
    const leadCost = leadCostOf(system, task);
    // The messages are made anew for each request: a later middleware may edit what it is handed, in place too.
    const request = (parts: readonly Rendered[]) => {
      const sent: BaseMessage[] = [new HumanMessage(task)];
      for (const r of parts) for (const m of r.measured) sent.push(langchainMessage(m));
      return sent;
    };
    // The paper's harness pinned nothing: a scene reading is cut like any other old observation.
    const pinned = (i: number) => o.mode !== "paper" && turns[i]!.pinned;
    const recent = (i: number) => i >= turns.length - o.keepTurns;
    const old = (i: number) => !recent(i) && !pinned(i);

    const usual = turns.map(wholeOf);
    let total = 1 + leadCost + usual.reduce((s, u) => s + u.rendered.cost, 0);
    for (let i = 0; i < turns.length; i++) {
      if (!always && total <= from) break;
      if (!old(i)) continue;
      const now = compactedOf(turns[i]!);
      total += now.rendered.cost - usual[i]!.rendered.cost;
      usual[i] = now;
    }
    if (total <= cap) return request(usual.map((u) => u.rendered));

    return request(cutToCap({ turns, usual, leadCost, cap, recent, old, pinned, cut, compactedReply: (t) => compactedOf(t).pieces.reply }));
  };
};

/** The request's messages after the system prompt, for one request (requestBuilder). */
export const buildMessages = (system: string, task: string, turns: readonly Turn[], o: CompactionOptions): BaseMessage[] =>
  requestBuilder(o)(system, task, turns);
