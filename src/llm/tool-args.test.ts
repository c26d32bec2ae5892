import { describe, expect, it } from "vitest";
import { MAX_ARGS_CHARS, MAX_ARGS_DEPTH, parseToolArgs } from "./tool-args.ts";

/** An array nested `depth` deep, built without recursion (as a server's JSON parser builds it). */
const nested = (depth: number): unknown => {
  let v: unknown = [];
  for (let i = 1; i < depth; i++) v = [v];
  return v;
};

describe("parseToolArgs", () => {
  it("reads a JSON object text as it is, and empty text as {}", () => {
    expect(parseToolArgs("f", '{"x":1}')).toEqual({ args: { x: 1 }, rawArgs: '{"x":1}' });
    expect(parseToolArgs("f", " ")).toEqual({ args: {}, rawArgs: " " });
  });
  it("repairs an object, a double-encoded string and trailing text, saying how", () => {
    expect(parseToolArgs("f", { x: 1 })).toMatchObject({ args: { x: 1 }, rawArgs: '{"x":1}', repaired: "arguments came as a JSON object, not a string" });
    expect(parseToolArgs("f", JSON.stringify('{"x":1}'))).toMatchObject({ args: { x: 1 }, repaired: expect.stringContaining("double-encoded") });
    expect(parseToolArgs("f", '{"x":"}"} </s>')).toMatchObject({ args: { x: "}" }, repaired: 'text after the JSON arguments was dropped (got "</s>")' });
  });
  it("names what is wrong with arguments it cannot read", () => {
    expect(parseToolArgs("f", '{"x":').argsError).toMatch(/^f: arguments are not valid JSON, .* \(got "\{\\"x\\":"\); send one JSON object$/);
    expect(parseToolArgs("f", "[1]").argsError).toBe('f: arguments must be a JSON object, not an array (got "[1]"); send one JSON object');
  });

  it("refuses arguments nested deeper than the limit, as text, as an object and double-encoded, keeping a cut text", () => {
    const text = `{"x": ${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
    const deeper = `f: arguments nest deeper than ${MAX_ARGS_DEPTH} levels; send one flat JSON object of the tool's fields`;
    const asText = parseToolArgs("f", text);
    expect(asText).toMatchObject({ args: {}, argsError: deeper });
    expect(asText.rawArgs).toMatch(/^\{"x": \[+ … \[18807 characters cut\] … \]+\}$/);
    expect(parseToolArgs("f", { x: nested(10_000) })).toEqual({ args: {}, rawArgs: "", argsError: deeper });
    const inner = `{"x": ${"[".repeat(5_000)}${"]".repeat(5_000)}}`;
    expect(parseToolArgs("f", JSON.stringify(inner))).toMatchObject({ args: {}, argsError: deeper });
  });
  it("reads arguments at the depth limit, and refuses longer ones than the limit with their length", () => {
    expect(parseToolArgs("f", { x: nested(MAX_ARGS_DEPTH - 1) }).argsError).toBeUndefined();
    const long = JSON.stringify({ code: "x".repeat(MAX_ARGS_CHARS) });
    expect(parseToolArgs("f", long).argsError).toBe(
      `f: arguments are ${long.length} characters long, over the limit of ${MAX_ARGS_CHARS}; send one flat JSON object of the tool's fields`,
    );
    expect(parseToolArgs("f", JSON.parse(long)).argsError).toMatch(/^f: arguments are \d+ characters long, over the limit/);
  });
});
