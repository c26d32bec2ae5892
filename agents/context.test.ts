import fc from "fast-check";
import type { AIMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { toRecordMessages } from "../src/llm/agent-messages.ts";
import type { Message, ToolCall } from "../src/llm/chat-model.ts";
import { ActorConfig } from "./actor-config.ts";
import { buildMessages as requestMessages, requestBuilder, type CompactionOptions, type Turn } from "./context.ts";

const SYSTEM = "You solve physics puzzles. ".repeat(40);
const TASK = "Solve catapult seed 7 in at most 25 turns.";
const opts = (maxChars: number, mode: CompactionOptions["mode"] = "paper"): CompactionOptions => ({ keepTurns: 4, head: 240, tail: 120, maxChars, mode });
const size = (messages: Message[]) => JSON.stringify(messages).length;

/** The whole request in the record form, the system prompt first: the form the request cap measures. */
const buildMessages = (system: string, task: string, turns: readonly Turn[], o: CompactionOptions): Message[] => [
  { role: "system", content: system },
  ...toRecordMessages(requestMessages(system, task, turns, o)),
];

const call = (i: number, args: unknown = { x: i / 10, y: 2, r: 0.5 }): ToolCall => ({
  id: `call_${i}`,
  name: "simulate_action",
  args,
  rawArgs: JSON.stringify(args),
});
const turn = (i: number, over: Partial<Turn> = {}): Turn => ({
  thought: `Turn ${i}: try x=${i / 10}.`,
  call: call(i),
  reply: `no success at x=${i / 10}`,
  pinned: false,
  ...over,
});

/** Every assistant message with calls is followed by one tool message per call, in order (the API's rule). */
const wellPaired = (messages: Message[]) =>
  messages.every(
    (m, i) =>
      m.role !== "assistant" ||
      m.toolCalls.every((c, k) => {
        const next = messages[i + 1 + k];
        return next?.role === "tool" && next.toolCallId === c.id;
      }),
  );

describe("buildMessages", () => {
  it("in paper mode, keeps the last keepTurns verbatim and cuts every older observation, a scene reading too (under the cap)", () => {
    const long = "o".repeat(1000);
    const cutLong = `${"o".repeat(240)} … [640 characters cut] … ${"o".repeat(120)}`;
    const turns = [turn(0, { reply: long, pinned: true }), turn(1, { reply: long }), ...[2, 3, 4, 5].map((i) => turn(i, { reply: long }))];
    const messages = buildMessages(SYSTEM, TASK, turns, opts(1_000_000));
    expect(messages).toHaveLength(2 + 2 * turns.length);
    expect(messages[3]!.content).toBe(cutLong); // the paper's harness pinned nothing
    expect(messages[5]!.content).toBe(cutLong);
    expect(messages.slice(-1)[0]!.content).toBe(long);
  });

  it("in paper-open-weight mode, cuts every older observation but keeps the first scene readings whole", () => {
    const long = "o".repeat(1000);
    const turns = [turn(0, { reply: long, pinned: true }), turn(1, { reply: long }), ...[2, 3, 4, 5].map((i) => turn(i, { reply: long }))];
    const messages = buildMessages(SYSTEM, TASK, turns, opts(1_000_000, "paper-open-weight"));
    expect(messages[3]!.content).toBe(long); // pinned
    expect(messages[5]!.content).toBe(`${"o".repeat(240)} … [640 characters cut] … ${"o".repeat(120)}`);
  });

  it("has a default request cap in ActorConfig and uses it when none is passed", () => {
    const cap = ActorConfig.parse({}).maxRequestChars;
    expect(cap).toBeGreaterThanOrEqual(50_000);
    const huge = "t".repeat(3 * cap);
    const messages = buildMessages(SYSTEM, TASK, [turn(0), turn(1, { thought: huge })], { keepTurns: 4, head: 240, tail: 120 });
    expect(size(messages)).toBeLessThanOrEqual(cap);
  });

  // Without the cap (docs/spec/method.md §1.2) a 2 MB thought made every later request 2 MB, then 4 MB, ...
  it("bounds the whole request when the model writes megabyte thoughts and arguments", () => {
    const cap = 60_000;
    const turns: Turn[] = [];
    for (let i = 0; i < 12; i++) {
      const big = i % 3 === 0;
      turns.push(
        turn(i, {
          thought: big ? `${"why ".repeat(500_000)}so x=${i}` : `short ${i}`,
          ...(i % 4 === 1 ? { call: call(i, { x: 1, y: 2, r: 0.5, note: "n".repeat(1_000_000) }) } : {}),
        }),
      );
      const messages = buildMessages(SYSTEM, TASK, turns, opts(cap));
      expect(size(messages)).toBeLessThanOrEqual(cap);
      expect(wellPaired(messages)).toBe(true);
      expect(messages[0]).toEqual({ role: "system", content: SYSTEM });
      expect(messages[1]).toEqual({ role: "user", content: TASK });
    }
    const messages = buildMessages(SYSTEM, TASK, turns, opts(cap));
    const text = JSON.stringify(messages);
    // The cut is marked, and the newest turn is there, its short thought and observation verbatim.
    expect(text).toMatch(/characters cut/);
    expect(messages.at(-2)).toMatchObject({ role: "assistant", content: "short 11", toolCalls: [{ id: "call_11" }] });
    expect(messages.at(-1)).toMatchObject({ role: "tool", content: "no success at x=1.1" });
  });

  it("gives the last turns as much as the cap allows: the newest huge thought is cut, not dropped", () => {
    const cap = 40_000;
    const huge = `${"a".repeat(100_000)}THE END`;
    const messages = buildMessages(SYSTEM, TASK, [turn(0), turn(1), turn(2, { thought: huge })], opts(cap));
    expect(size(messages)).toBeLessThanOrEqual(cap);
    const last = messages.filter((m) => m.role === "assistant").at(-1)!;
    // Most of the room goes to the newest turn, head and tail kept.
    expect(last.content.length).toBeGreaterThan(cap / 2);
    expect(last.content).toMatch(/^a+ … \[\d+ characters cut to fit the request cap\] … a*THE END$/);
    expect(size(messages)).toBeGreaterThan(cap * 0.9);
  });

  it("drops the oldest turns when even cut they do not fit, and says how many", () => {
    const cap = 20_000;
    const turns = Array.from({ length: 40 }, (_, i) => turn(i, { thought: `thinking about turn ${i} `.repeat(40), reply: `observation ${i} `.repeat(60) }));
    const messages = buildMessages(SYSTEM, TASK, turns, opts(cap));
    expect(size(messages)).toBeLessThanOrEqual(cap);
    const note = messages[2]!;
    expect(note.role).toBe("user");
    expect(note.content).toMatch(/^\[\d+ earlier turns? cut to keep the request under 20000 characters\]$/);
    expect(messages.at(-1)).toMatchObject({ role: "tool", content: turns[39]!.reply });
    expect(wellPaired(messages)).toBe(true);
  });

  it("keeps a pinned scene observation when it drops the turns around it", () => {
    const scene = `red_ball at (0, 4); ${"basket wall ".repeat(200)}`;
    const turns = [
      turn(0, { reply: scene, pinned: true }),
      ...Array.from({ length: 30 }, (_, i) => turn(i + 1, { thought: "x".repeat(2000), reply: "y".repeat(2000) })),
    ];
    const messages = buildMessages(SYSTEM, TASK, turns, opts(20_000, "context"));
    expect(size(messages)).toBeLessThanOrEqual(20_000);
    expect(messages.some((m) => m.role === "tool" && m.content === scene)).toBe(true);
  });

  it("cuts huge tool-call arguments to a marked object, raw and parsed alike", () => {
    const cap = 30_000;
    const args = { x: 1, y: 2, r: 0.5, note: "n".repeat(200_000) };
    const messages = buildMessages(SYSTEM, TASK, [turn(0, { call: call(0, args) })], opts(cap));
    expect(size(messages)).toBeLessThanOrEqual(cap);
    const sent = (messages[2] as Extract<Message, { role: "assistant" }>).toolCalls[0]!;
    expect(sent.id).toBe("call_0");
    expect(sent.rawArgs).toBe(JSON.stringify(sent.args));
    expect(JSON.stringify(sent.args)).toMatch(/characters cut to fit the request cap/);
  });

  it("keeps the newest turn when its arguments are all escapes and the budget exceeds their length", () => {
    // Each escape costs several characters once the cut arguments are sent parsed and raw: the retries must
    // shrink what was handed out, not a budget already above every piece's length.
    const args = { s: '"\\\n'.repeat(1136) };
    const messages = buildMessages(SYSTEM, TASK, [turn(0, { thought: "", reply: "", call: call(0, args) })], opts(20_684));
    expect(size(messages)).toBeLessThanOrEqual(20_684);
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
  });

  it("stays under any cap for any thoughts, arguments and observations (property)", () => {
    const text = fc.oneof(
      fc.string({ maxLength: 50 }),
      fc.string({ unit: "grapheme", maxLength: 400 }),
      fc.nat({ max: 60_000 }).map((n) => '"\\\n'.repeat(n)),
    );
    const arbTurn = fc.record({
      thought: text,
      reply: text,
      pinned: fc.boolean(),
      withCall: fc.boolean(),
      arg: text,
    });
    fc.assert(
      fc.property(fc.array(arbTurn, { maxLength: 12 }), fc.integer({ min: 10_000, max: 120_000 }), (raw, cap) => {
        const turns: Turn[] = raw.map((t, i) => ({
          thought: t.thought,
          reply: t.reply,
          pinned: t.pinned,
          call: t.withCall ? call(i, { s: t.arg }) : undefined,
        }));
        const messages = buildMessages(SYSTEM, TASK, turns, opts(cap));
        expect(size(messages)).toBeLessThanOrEqual(cap);
        expect(wellPaired(messages)).toBe(true);
        // The newest turn is never dropped.
        if (turns.length > 0) expect(messages.at(-2)?.role).toBe("assistant");
      }),
      { numRuns: 60 },
    );
  });

  it("in context mode, leaves old observations whole under compactFrom and past it compacts the oldest first, by sections", () => {
    const observation = (i: number) => [
      { text: `[turn ${i + 1} of 25 used]`, keep: true },
      { text: `FAILURE ${i}. Longest green_ball–blue_ball contact: 0.${i} s of 3.`, keep: true },
      { text: Array.from({ length: 30 }, (_, k) => `- other_${k} at (${k}.00, ${i}.00)`).join("\n"), keep: false },
      { text: `- green_ball at (${i}.50, -4.78)`, keep: true },
    ];
    const turns = Array.from({ length: 10 }, (_, i) => {
      const compact = observation(i);
      return turn(i, { reply: compact.map((s) => s.text).join("\n"), compact });
    });
    const whole = buildMessages(SYSTEM, TASK, turns, { ...opts(1_000_000, "context"), compactFrom: 500_000 });
    expect(whole.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(turns.map((t) => t.reply));

    const from = size(whole) - 1500;
    const messages = buildMessages(SYSTEM, TASK, turns, { ...opts(1_000_000, "context"), compactFrom: from });
    expect(size(messages)).toBeLessThanOrEqual(from);
    const replies = messages.filter((m) => m.role === "tool").map((m) => m.content);
    const cut = replies.map((r) => /lines \(\d+ characters\) cut/.test(r));
    // Only as many as needed, oldest first: a prefix of the old turns.
    expect(cut[0]).toBe(true);
    expect(cut.indexOf(false)).toBeGreaterThan(0);
    expect(cut.slice(cut.indexOf(false)).every((c) => !c)).toBe(true);
    replies.forEach((r, i) => {
      expect(r).toContain(`FAILURE ${i}. Longest green_ball–blue_ball contact: 0.${i} s of 3.`);
      expect(r).toContain(`- green_ball at (${i}.50, -4.78)`);
    });
  });

  it("builds each request of a growing episode as a fresh build would, whatever it kept of the turns before", () => {
    const scene = `red_ball at (0, 4); ${"basket wall ".repeat(200)}`;
    const turns = [
      turn(0, { reply: scene, pinned: true }),
      ...Array.from({ length: 30 }, (_, i) => turn(i + 1, { thought: "x".repeat(900), reply: "y".repeat(1200) })),
    ];
    for (const mode of ["context", "paper", "paper-open-weight"] as const) {
      const o = { ...opts(30_000, mode), compactFrom: 12_000 };
      const build = requestBuilder(o);
      for (let n = 0; n <= turns.length; n++) {
        const recorded = [{ role: "system", content: SYSTEM }, ...toRecordMessages(build(SYSTEM, TASK, turns.slice(0, n)))];
        expect(recorded).toEqual(buildMessages(SYSTEM, TASK, turns.slice(0, n), o));
      }
    }
  });

  it("makes each request's messages anew: an edit a later middleware makes in place reaches that request only", () => {
    const build = requestBuilder(opts(1_000_000, "context"));
    const turns = [turn(0), turn(1)];
    const first = build(SYSTEM, TASK, turns);
    first[1]!.content = "edited";
    const call = (first[1] as AIMessage).tool_calls![0]!;
    call.args = { edited: true };
    const second = build(SYSTEM, TASK, turns);
    expect(second[1]!.content).toBe(turns[0]!.thought);
    expect((second[1] as AIMessage).tool_calls![0]!.args).toEqual(turns[0]!.call!.args);
    expect(second.map((m) => m.content)).toEqual(build(SYSTEM, TASK, turns).map((m) => m.content));
  });
});
