import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AIMessage, HumanMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { afterEach, describe, expect, it } from "vitest";
import { turnOf } from "../../test/support/turn-of.ts";
import { startFakeOpenAI, type FakeOpenAI } from "../../test/support/fake-openai-server.ts";
import { AuditLine } from "./audit-log.ts";
import { LlmConfig } from "./config.ts";
import { EndpointLimits } from "./endpoint-limits.ts";
import { createRoleModel } from "./role-model.ts";

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("createRoleModel", () => {
  it("builds the role's model from config and env, cache inside the audit log", async () => {
    server = await startFakeOpenAI([{ text: "hello", model: "evo-2025-02-02" }]);
    const llm = LlmConfig.parse({ evolver: { model: "evo", temperature: 0.3 }, cacheDir: mkdtempSync(join(tmpdir(), "hexa-role-")) });
    const lines: string[] = [];
    const model = createRoleModel("evolver", llm, {
      env: { OPENAI_API_KEY: "env-key", OPENAI_BASE_URL: server.url },
      auditSink: (l) => lines.push(l),
      limits: new EndpointLimits(),
    });
    const ask = [new HumanMessage("Edit the bank.")];

    const first = await turnOf(model, ask);
    const second = await turnOf(model, ask);

    expect(model.model).toBe("evo");
    expect([first.text, first.model, first.fromCache]).toEqual(["hello", "evo-2025-02-02", false]);
    expect(second.fromCache).toBe(true);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.body).toMatchObject({ model: "evo", temperature: 0.3 });
    const logged = lines.map((l) => AuditLine.parse(JSON.parse(l)));
    expect(logged.map((l) => [l.role, l.endpoint, l.fromCache])).toEqual([
      ["evolver", server.url, false],
      ["evolver", server.url, true],
    ]);
  });

  it("is a ChatOpenAI a langchain caller drives directly, its audit log, cache and metering in the one call", async () => {
    server = await startFakeOpenAI([{ toolCalls: [{ name: "probe", args: { x: 1 } }], model: "act-2025-02-02" }]);
    const llm = LlmConfig.parse({ actor: { model: "act" }, cacheDir: mkdtempSync(join(tmpdir(), "hexa-role-")) });
    const lines: string[] = [];
    const heard: string[] = [];
    const model = createRoleModel("actor", llm, {
      env: { OPENAI_API_KEY: "k", OPENAI_BASE_URL: server.url },
      auditSink: (l) => lines.push(l),
      limits: new EndpointLimits(),
    });
    const chat = model.listening((turn) => heard.push(`${turn.model} ${turn.fromCache}`));
    expect(chat).toBeInstanceOf(ChatOpenAI);
    const probe = {
      type: "function" as const,
      function: { name: "probe", description: "reads", parameters: { type: "object", properties: { x: { type: "number" } } } },
    };
    const bound = chat.bindTools([probe]);

    const first = (await bound.invoke([new HumanMessage("Solve it.")])) as AIMessage;
    const second = (await bound.invoke([new HumanMessage("Solve it.")])) as AIMessage;

    expect(first.tool_calls?.map((c) => [c.name, c.args])).toEqual([["probe", { x: 1 }]]);
    expect(first.response_metadata.model_name).toBe("act-2025-02-02");
    expect(second.tool_calls).toEqual(first.tool_calls);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.body).toMatchObject({ tools: [probe], tool_choice: "auto" });
    expect(heard).toEqual(["act-2025-02-02 false", "act-2025-02-02 true"]);
    const logged = lines.map((l) => AuditLine.parse(JSON.parse(l)));
    expect(logged.map((l) => [l.tools, l.messages, l.fromCache])).toEqual([
      [["probe"], [{ role: "user", content: "Solve it." }], false],
      [["probe"], [{ role: "user", content: "Solve it." }], true],
    ]);
  });
});
