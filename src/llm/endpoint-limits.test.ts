import { afterEach, describe, expect, it } from "vitest";
import { turnOf } from "../../test/support/turn-of.ts";
import { HumanMessage } from "@langchain/core/messages";
import { startFakeOpenAI, type FakeOpenAI } from "../../test/support/fake-openai-server.ts";
import { ModelConfig } from "./config.ts";
import { EndpointLimits, Semaphore } from "./endpoint-limits.ts";
import { createOpenAIChat } from "./openai-chat.ts";
import { ConfigError } from "../errors.ts";

const ask = (n: number) => [new HumanMessage(`request ${n}`)];

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("Semaphore", () => {
  it("admits at most `size` at once and serves waiters in arrival order", async () => {
    const gate = new Semaphore(2);
    const order: number[] = [];
    let inside = 0;
    let most = 0;
    await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        gate.run(async () => {
          inside += 1;
          most = Math.max(most, inside);
          await new Promise((r) => setTimeout(r, 5));
          order.push(i);
          inside -= 1;
        }),
      ),
    );
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it("frees the slot when the task throws", async () => {
    const gate = new Semaphore(1);
    await expect(gate.run(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await gate.run(async () => "next")).toBe("next");
  });
});

describe("the per-endpoint limit", () => {
  it("keeps at most `concurrency` requests in flight at the server, across models on one endpoint", async () => {
    server = await startFakeOpenAI(Array.from({ length: 8 }, (_, i) => ({ text: `answer ${i}`, delayMs: 40 })));
    const limits = new EndpointLimits();
    const make = (model: string) => createOpenAIChat({ ...ModelConfig.parse({ model, concurrency: 3 }), baseURL: server!.url, apiKey: "k" }, { limits });
    const actor = make("actor-model");
    const evolver = make("evolver-model");

    const turns = await Promise.all(Array.from({ length: 8 }, (_, i) => turnOf(i % 2 ? evolver : actor, ask(i))));

    expect(turns).toHaveLength(8);
    expect(server.requests).toHaveLength(8);
    expect(server.maxInFlight).toBe(3);
  });

  it("refuses two sizes for one endpoint", () => {
    const limits = new EndpointLimits();
    limits.for("http://127.0.0.1:1/v1", 4, "llm.actor");
    expect(() => limits.for("http://127.0.0.1:1/v1", 8, "llm.evolver")).toThrow(
      new ConfigError("llm.evolver.concurrency: http://127.0.0.1:1/v1 is already limited to 4 (got 8); give every role on one endpoint the same concurrency"),
    );
    expect(limits.for("http://127.0.0.1:2/v1", 8, "llm.evolver").size).toBe(8);
  });

  it("gives a role that sets no concurrency the endpoint's limit, or the default for where it is", () => {
    const limits = new EndpointLimits();
    limits.for("http://127.0.0.1:1/v1", 4, "llm.actor");
    expect(limits.for("http://127.0.0.1:1/v1", undefined, "llm.evolver").size).toBe(4);
    expect(limits.for("http://localhost:2/v1", undefined, "llm.actor").size).toBe(1);
    expect(limits.for("https://api.example.com/v1", undefined, "llm.actor").size).toBe(4);
  });
});
