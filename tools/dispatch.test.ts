import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ModelOutputError } from "../src/errors.ts";
import { callToolSync, runParsedSync } from "./dispatch.ts";
import { toolDefiner } from "./define-tool.ts";

const defineTool = toolDefiner<{ runs: unknown[] }>();

/** A schema whose output is not its input: parsing the parsed arguments again would double them. */
const doubling = defineTool({
  name: "double",
  description: "doubles x",
  input: z.strictObject({ x: z.number().transform((x) => x * 2) }),
  run: (session, args) => {
    session.runs.push(args);
    if (args.x < 0) throw new ModelOutputError("x must not be negative");
    return { observation: `x is ${args.x}` };
  },
});

describe("running a call whose arguments were parsed already", () => {
  it("runs the tool on them as they are, where callToolSync parses the raw call once", () => {
    const session = { runs: [] as unknown[] };
    const parsed = callToolSync([doubling], session, "double", { x: 2 });
    expect(parsed).toMatchObject({ ok: true, observation: "x is 4" });
    expect(runParsedSync(doubling, session, session.runs[0])).toMatchObject({ ok: true, tool: "double", observation: "x is 4" });
  });

  it("shows the model its mistakes with the same rules", () => {
    expect(runParsedSync(doubling, { runs: [] }, { x: -1 })).toEqual({
      ok: false,
      tool: "double",
      error: "x must not be negative",
      observation: "ERROR: x must not be negative",
    });
  });
});
