import { createMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { middlewareOf } from "./user-middleware.ts";

const logging = createMiddleware({ name: "Logging", wrapToolCall: (request, handler) => handler(request) });
const counting = createMiddleware({ name: "Counting", beforeModel: () => undefined });

describe("middlewareOf: what a HEXA_MIDDLEWARE module exports", () => {
  it("takes one middleware or an array of them, as default or `middleware`", () => {
    expect(middlewareOf({ default: logging })).toEqual({ middleware: [logging] });
    expect(middlewareOf({ middleware: [logging, counting] })).toEqual({ middleware: [logging, counting] });
  });

  it("says what it found instead of middleware", () => {
    expect(middlewareOf({ family: {} })).toEqual({ found: "no default or `middleware` export" });
    expect(middlewareOf({ default: [] })).toEqual({ found: "an empty array" });
    expect(middlewareOf({ default: () => logging })).toEqual({ found: "a function" });
    expect(middlewareOf({ default: { name: "x" } })).toEqual({ found: 'an object with keys ["name"]' });
    expect(middlewareOf({ middleware: [logging, "tracing"] })).toEqual({ found: "an array holding a string" });
  });
});
