import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readExchanges } from "./recorded-exchanges.ts";

const dir = mkdtempSync(join(tmpdir(), "hexa-recorded-exchanges-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (over: Record<string, unknown> = {}, response: Record<string, unknown> = {}) =>
  JSON.stringify({
    schemaVersion: 1,
    ts: "2026-01-01T00:00:00.000Z",
    role: "actor",
    endpoint: "http://127.0.0.1:9/v1",
    modelRequested: "m",
    modelReported: "m-2025",
    messages: [{ role: "user", content: "hi" }],
    messagesSha256: "a".repeat(64),
    requestSha256: "b".repeat(64),
    tools: ["simulate"],
    response: { text: "ok", toolCalls: [], ...response },
    usage: { input: 3, output: 1, cached: 0 },
    latencyMs: 5,
    fromCache: false,
    ...over,
  });

const log = (name: string, ...lines: string[]) => {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
};

describe("readExchanges", () => {
  it("reads each exchange whole: its key, the answer with its reasoning and problem, usage and the reported model", () => {
    const [x] = readExchanges(log("good.jsonl", line({}, { reasoning: "think", problem: "cut at the output cap" })));
    expect(x).toMatchObject({ line: 1, role: "actor", key: "b".repeat(64), tools: ["simulate"] });
    expect(x!.answer).toEqual({
      turn: {
        text: "ok",
        toolCalls: [],
        reasoning: "think",
        problem: "cut at the output cap",
        usage: { input: 3, output: 1, cached: 0 },
        model: "m-2025",
        latencyMs: 5,
        fromCache: false,
      },
    });
  });

  it("refuses a hash-only line, a line without requestSha256, and an answer stored cut, naming the line and field", () => {
    const { messages: _m, ...hashOnly } = JSON.parse(line()) as Record<string, unknown>;
    expect(() => readExchanges(log("hash.jsonl", line(), JSON.stringify(hashOnly)))).toThrow(/hash\.jsonl:2: messages: the log keeps only their sha256/);
    expect(() => readExchanges(log("old.jsonl", line({ requestSha256: undefined })))).toThrow(/old\.jsonl:1: requestSha256: absent/);
    const cut = `${"x".repeat(28592)} … [5000 characters cut] … ${"y".repeat(4096)}`;
    expect(() => readExchanges(log("cut.jsonl", line({}, { text: cut })))).toThrow(/cut\.jsonl:1: response: the answer was longer than the log keeps/);
  });

  it("a missing log and a line that is not JSON cannot be replayed, and say which file", () => {
    expect(() => readExchanges(join(dir, "none.jsonl"))).toThrow(/none\.jsonl: missing/);
    expect(() => readExchanges(log("torn.jsonl", line(), "{not json"))).toThrow(/torn\.jsonl:2: not valid JSON/);
  });
});
