import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json.ts";

// Expected texts recorded from the three functions this module replaced (src/llm/canonical-hash.ts,
// levels/reward-search/trainer/cache.ts, src/app/run-setup.ts), which gave the same bytes on these inputs: the
// config hash, the LLM response cache and the trainer cache store hashes of this text.
describe("canonicalJson", () => {
  it.each<[string, unknown, string]>([
    [
      "keys sorted at every depth, arrays kept in order",
      { b: { d: [{ z: 1, y: null }], c: 'x\n"' }, a: [3, 2, 1] },
      '{"a":[3,2,1],"b":{"c":"x\\n\\"","d":[{"y":null,"z":1}]}}',
    ],
    [
      "integer-like keys first, ascending; then code-unit order",
      { "10": 1, "2": 2, a: 3, "-1": 4, "01": 5, B: 7, b: 8, "": 10 },
      '{"2":2,"10":1,"":10,"-1":4,"01":5,"B":7,"a":3,"b":8}',
    ],
    ["non-ASCII keys by UTF-16 code units", { é: 1, e: 2, "😀": 3, "\uffff": 4, Z: 5 }, '{"Z":5,"e":2,"é":1,"😀":3,"\uffff":4}'],
    [
      "undefined, functions and symbols dropped from objects, null in arrays",
      { u: undefined, f: () => 1, s: Symbol("s"), n: null, a: [undefined, () => 1] },
      '{"a":[null,null],"n":null}',
    ],
    [
      "toJSON runs first, then the result's keys are sorted",
      { d: new Date(0), t: { toJSON: () => ({ b: 1, a: 2 }) } },
      '{"d":"1970-01-01T00:00:00.000Z","t":{"a":2,"b":1}}',
    ],
    ["a __proto__ key from JSON.parse is an ordinary key", JSON.parse('{"z": 1, "__proto__": {"b": 1, "a": 2}}'), '{"__proto__":{"a":2,"b":1},"z":1}'],
  ])("%s", (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });

  it("gives one text for any key order, and parsing it back re-serialises to the same text (run-setup's stored config)", () => {
    const a = { x: { q: [1, { s: 2, r: 3 }], p: true }, w: "w" };
    const b = { w: "w", x: { p: true, q: [1, { r: 3, s: 2 }] } };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(JSON.stringify(JSON.parse(canonicalJson(a)))).toBe(canonicalJson(a));
  });
});
