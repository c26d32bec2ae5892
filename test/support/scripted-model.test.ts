import { describe, expect, it } from "vitest";
import { ask } from "../../src/llm/ask.ts";
import { call, ScriptedModel } from "./scripted-model.ts";

const calls = async (model: ScriptedModel) => (await ask(model, [])).turn.toolCalls;

describe("a scripted model", () => {
  it("numbers its tool calls itself, whatever other scripts were built or played before", async () => {
    const earlier = new ScriptedModel([{ toolCalls: [call("probe", {}), call("probe", {})] }]);
    await ask(earlier, []);
    const model = new ScriptedModel([{ toolCalls: [call("look", {})] }, { toolCalls: [call("probe", { x: 1 }), call("finish", {})] }]);
    const ids = [await calls(model), await calls(model)].map((cs) => cs.map((c) => c.id));
    expect(ids).toEqual([["call_1"], ["call_2", "call_3"]]);
  });

  it("keeps an id the script chose", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ ...call("probe", {}), id: "bad_4" }, call("probe", {})] }]);
    expect((await calls(model)).map((c) => c.id)).toEqual(["bad_4", "call_1"]);
  });
});
