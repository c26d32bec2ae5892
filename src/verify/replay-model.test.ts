import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { turnOf } from "../../test/support/turn-of.ts";
import { exchangeKey } from "../llm/audit-log.ts";
import type { AssistantTurn, Message, ToolSpec } from "../llm/chat-model.ts";
import type { RecordedExchange } from "./recorded-exchanges.ts";
import { ReplayBook } from "./replay-model.ts";

const tools: ToolSpec[] = [{ name: "simulate", description: "run it", parameters: { type: "object" } }];
const ask = (user: string): Message[] => [
  { role: "system", content: "Solve puzzles." },
  { role: "user", content: `Level catapult.\n${user}` },
];
const request = (user: string) => [new SystemMessage("Solve puzzles."), new HumanMessage(`Level catapult.\n${user}`)];
const turn = (text: string): AssistantTurn => ({
  text,
  toolCalls: [],
  usage: { input: 3, output: 1, cached: 0 },
  model: "m-2025",
  latencyMs: 12,
  fromCache: false,
});
const exchange = (line: number, messages: Message[], text: string): RecordedExchange => ({
  line,
  role: "actor",
  key: exchangeKey("m", messages, tools),
  messages,
  tools: ["simulate"],
  answer: { turn: turn(text) },
});

describe("ReplayBook", () => {
  it("answers a request by its exact key, identical requests in the order the run got their answers", async () => {
    const book = new ReplayBook([exchange(1, ask("seed 1"), "first"), exchange(2, ask("seed 1"), "second"), exchange(3, ask("seed 2"), "other")]);
    const actor = book.model("actor", "m");
    expect((await turnOf(actor, request("seed 2"), tools)).text).toBe("other");
    expect((await turnOf(actor, request("seed 1"), tools)).text).toBe("first");
    expect((await turnOf(actor, request("seed 1"), tools)).text).toBe("second");
    expect(book.answered).toBe(3);
    expect(book.left()).toEqual([]);
    expect(book.divergence).toBeUndefined();
  });

  it("a request the run never made fails and is kept as the divergence, with the nearest recorded request's first differing line", async () => {
    const book = new ReplayBook([exchange(1, ask("seed 1"), "first"), exchange(2, ask("seed 2 is windy"), "x")]);
    await expect(turnOf(book.model("actor", "m"), request("seed 2 is calm"), tools)).rejects.toThrow(/never asked/);
    expect(book.divergence).toEqual({
      what: "the replay asked the actor something the run never asked",
      field: "request (nearest recorded: llm-log.jsonl line 2)",
      recorded: "message 2 (user) line 2: seed 2 is windy",
      replayed: "message 2 (user) line 2: seed 2 is calm",
    });
    expect(book.left().map((x) => x.line)).toEqual([1, 2]);
  });

  it("the same messages with a tool described differently is a request the run never made", async () => {
    const book = new ReplayBook([exchange(1, ask("seed 1"), "first")]);
    const changed = [{ ...tools[0]!, description: "run it twice" }];
    await expect(turnOf(book.model("actor", "m"), request("seed 1"), changed)).rejects.toThrow(/never asked/);
    expect(book.divergence?.recorded).toMatch(/tool's description or schema/);
  });

  it("another role's record does not answer, and a recorded failure is thrown again", async () => {
    const failed: RecordedExchange = { ...exchange(1, ask("seed 1"), "x"), answer: { error: "LlmError: 500 upstream" } };
    const book = new ReplayBook([failed]);
    await expect(turnOf(book.model("evolver", "m"), request("seed 1"), tools)).rejects.toThrow(/never asked/);
    expect(book.divergence?.recorded).toBe("(the run made no evolver request)");
    await expect(turnOf(book.model("actor", "m"), request("seed 1"), tools)).rejects.toThrow(/500 upstream/);
  });
});
