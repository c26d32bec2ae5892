import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { getTool, listTools, TOOL_SETS, toolSet } from "./index.ts";

interface JsonSchema {
  description?: string;
  properties?: Record<string, JsonSchema>;
}

describe("tool registry", () => {
  it.each(listTools())("%s: lives in tools/<name>.ts and describes every argument for the model", (name) => {
    const tool = getTool(name);
    expect(tool.name).toBe(name);
    expect(existsSync(join(import.meta.dirname, `${name}.ts`))).toBe(true);
    expect(tool.description.length).toBeGreaterThan(40);
    const schema = z.toJSONSchema(tool.input, { io: "input" }) as JsonSchema;
    for (const [field, spec] of Object.entries(schema.properties ?? {})) expect(spec.description, `${name}.${field}`).toBeTruthy();
  });

  it("rejects an unknown tool name with the list of known ones", () => {
    expect(() => getTool("simulate")).toThrow(/unknown tool 'simulate'; known: get_level_state, /);
  });
});

describe("tool sets", () => {
  it("the paper's set is a subset of hexa's extended set, which holds every tool", () => {
    expect(TOOL_SETS.paper.every((t) => (TOOL_SETS.extended as readonly string[]).includes(t))).toBe(true);
    expect([...TOOL_SETS.extended].sort()).toEqual([...listTools()].sort());
    expect(toolSet("paper").map((t) => t.name)).toEqual([...TOOL_SETS.paper]);
    expect(() => toolSet("full")).toThrow(/unknown tool set 'full'; known: paper, extended/);
  });
});
