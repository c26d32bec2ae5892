import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { TaskEnv } from "../src/family/task-env.ts";
import { call, ScriptedModel } from "../test/support/scripted-model.ts";
import { runActorEpisode } from "./actor.ts";
import { ActorConfig } from "./actor-config.ts";

/** A schema whose output is not its input, so a second parse of the parsed call would show (x doubled twice). */
const Probe = z.strictObject({ x: z.number().transform((x) => x * 2) });

/** A task with one zod-declared tool; `call` (the family's own parse) and `parsed.call` record what reached them. */
const probeEnv = (seen: { raw: unknown[]; parsed: unknown[] }): TaskEnv => ({
  level: "probe",
  seed: 0,
  tools: [{ name: "probe", description: "probes", parameters: z.toJSONSchema(Probe, { io: "input" }) as Record<string, unknown> }],
  prompt: { noun: "task", role: "You probe.", sections: [], rules: [], task: "Probe." },
  call: async (name, args) => {
    seen.raw.push(args);
    const parsed = Probe.safeParse(args);
    return parsed.success ? { ok: true, observation: `x=${parsed.data.x}` } : { ok: false, error: "bad", observation: `ERROR: ${name} wants a number x` };
  },
  parsed: {
    inputs: { probe: Probe },
    call: async (_name, args) => {
      seen.parsed.push(args);
      return {
        ok: true,
        observation: `x=${(args as { x: number }).x}`,
        ...((args as { x: number }).x === 8 ? { ends: { reason: "finish", success: true, action: args } } : {}),
      };
    },
  },
  close: async () => {},
});

describe("a task's zod-declared tools in the actor", () => {
  it("reach the family parsed once by langchain; a call the schema refuses, or that is no JSON object, the family answers as made", async () => {
    const seen = { raw: [] as unknown[], parsed: [] as unknown[] };
    const model = new ScriptedModel([
      { toolCalls: [call("probe", { x: 1 })] },
      { toolCalls: [call("probe", { x: "one" })] },
      { toolCalls: [{ id: "arr", name: "probe", args: [1], rawArgs: "[1]" }] },
      { toolCalls: [call("probe", { x: 4 })] },
    ]);
    const t = await runActorEpisode(
      { open: async () => probeEnv(seen), config: ActorConfig.parse({}), agent: "react" },
      { model, costOf: () => 0, now: () => 0 },
    );
    expect(seen.parsed).toEqual([{ x: 2 }, { x: 8 }]);
    expect(seen.raw).toEqual([{ x: "one" }, [1]]);
    expect(t.steps.map((s) => s.observation)).toEqual(["x=2", "ERROR: probe wants a number x", "ERROR: probe wants a number x", "x=8"]);
    expect(t).toMatchObject({ success: true, stopReason: "finish" });
  });
});
