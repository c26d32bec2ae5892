import { describe, expect, it } from "vitest";
import { parseToolArgs } from "./tool-args.ts";

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
});
