import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
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
    const ask = [{ role: "user" as const, content: "Edit the bank." }];

    const first = await model.invoke(ask, []);
    const second = await model.invoke(ask, []);

    expect(model.name).toBe("evo");
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
});
