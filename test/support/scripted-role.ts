import { LlmConfig, type Role } from "../../src/llm/config.ts";
import { createRoleModel } from "../../src/llm/role-model.ts";
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest, type ScriptItem } from "./fake-openai-server.ts";

/**
 * One role's model on the real ChatOpenAI client, pointed at a local OpenAI-compatible server started on first
 * use and fed scripted answers; `close()` after each test.
 */
export const scriptedRole = (role: Role, timeoutMs = 1500) => {
  let server: FakeOpenAI | undefined;
  return {
    modelFor: async (script: ScriptItem[]) => {
      server ??= await startFakeOpenAI();
      server.push(...script);
      const llm = LlmConfig.parse({ [role]: { model: "gpt-4.1-mini", baseURL: server.url, apiKey: "test", maxRetries: 0, timeoutMs } });
      return createRoleModel(role, llm, { env: {}, sleep: async () => {} });
    },
    /** The requests the server received since it started (this test's). */
    get requests(): RecordedRequest[] {
      return server?.requests ?? [];
    },
    close: async () => {
      await server?.close();
      server = undefined;
    },
  };
};
