import { describe, expect, it } from "vitest";
import { genericCommands } from "./commands.ts";
import { createAppContext } from "../app/context.ts";
import type { LazyCommand } from "../cli-kit/lazy-command.ts";

const lazy = (c: unknown): c is LazyCommand => typeof (c as LazyCommand).load === "function";

const ctx = await createAppContext({});
const everyCommand = [...genericCommands(ctx), ...ctx.families.modules().flatMap((m) => [...(m.commands ?? []), ...(m.levelCommands ?? [])])];

describe("lazy commands", () => {
  it("every command of hexa and of its families is lazy", () => {
    expect(everyCommand.length).toBeGreaterThan(15);
    expect(everyCommand.filter((c) => !lazy(c)).map((c) => c.command)).toEqual([]);
  });

  it.each(everyCommand.filter(lazy).map((c) => [c.stub.command, c] as const))("%s: the stub says what its module says", async (_, c) => {
    const module = await c.load();
    expect({ command: module.command, describe: module.describe }).toEqual(c.stub);
  });
});
