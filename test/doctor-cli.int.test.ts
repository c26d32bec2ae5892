import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeEndpoint, type EndpointModes, type FakeEndpoint } from "./support/fake-endpoint.ts";
import { hexa } from "./support/hexa-cli.ts";
import { tempDirs } from "./support/temp-files.ts";

const tmp = tempDirs("hexa-doctor-");
const endpoints: FakeEndpoint[] = [];
afterEach(async () => {
  await Promise.all(endpoints.splice(0).map((e) => e.close()));
});

const endpoint = async (modes: EndpointModes) => {
  const e = await startFakeEndpoint({ delayMs: 300, models: ["fake-model"], ...modes });
  endpoints.push(e);
  return e;
};

/** A run config with the actor and the evolver on the given endpoints. */
const config = (actor: FakeEndpoint, evolver: FakeEndpoint = actor): string => {
  const path = join(tmp(), "doctor.yaml");
  writeFileSync(
    path,
    [
      "levels: [catapult]",
      "agent: hexa",
      "evolver: llm",
      "llm:",
      `  actor: { model: fake-model, baseURL: "${actor.url}", apiKey: test }`,
      `  evolver: { model: fake-model, baseURL: "${evolver.url}", apiKey: test }`,
    ].join("\n"),
  );
  return path;
};

/** The table's row for one check, its cells split on runs of 2+ spaces. */
const row = (stdout: string, label: string): string[] => (stdout.split("\n").find((l) => l.startsWith(`${label}  `)) ?? "").split(/\s{2,}/).slice(1);

describe("hexa doctor", () => {
  it("a well-behaved endpoint: every check passes, both roles share one probe, exit 0", async () => {
    const e = await endpoint({ servedModel: "fake-model-2026-01", fingerprint: "fp_abc" });
    const out = await hexa(["doctor", config(e), "--context-tokens", "2000"]);

    expect(out.stderr).toBe("");
    expect(out.status).toBe(0);
    expect(row(out.stdout, "roles")).toEqual(["actor, evolver"]);
    expect(row(out.stdout, "reachable")).toEqual(["yes"]);
    expect(row(out.stdout, "model found")).toEqual(["yes (served as fake-model-2026-01, fingerprint fp_abc)"]);
    expect(row(out.stdout, "native tool calls")).toEqual(["tool_calls"]);
    expect(row(out.stdout, "structured output")).toEqual(["json_schema"]);
    expect(row(out.stdout, "usage reported")).toEqual(["plain yes · streamed yes"]);
    expect(row(out.stdout, "reasoning fields")).toEqual(["none"]);
    expect(row(out.stdout, "context window")[0]).toMatch(/^≥ ~2000 tokens \(20\d\d reported of ~2000 sent\)$/);
    expect(row(out.stdout, "parallel requests")[0]).toMatch(/^overlapped \(two at once: \d+ and \d+ ms; one alone: \d+ ms\)$/);
    expect(row(out.stdout, "verdict")).toEqual(["actor ok · evolver ok"]);
    expect(out.stdout).toContain(
      [
        "recommended config:",
        "llm:",
        "  actor:",
        `    baseURL: ${e.url}`,
        "    model: fake-model",
        "    structuredOutput: json_schema",
        "    concurrency: 4",
        "    streaming: false",
        "  evolver:",
      ].join("\n"),
    );
    // Chat calls (GET /models aside): plain, streamed, tools, json_schema, long prompt, one alone, twice two at
    // once; one probe for both roles.
    expect(e.requests).toHaveLength(10);
  });

  it("a weak endpoint: tool calls as text, json_schema refused, no usage, <think>, serial, small context; the actor cannot work (exit 1)", async () => {
    const weak = await endpoint({ tools: "text", jsonSchema: "refuse", usage: false, reasoning: "think", serial: true });
    const small = await endpoint({ contextTokens: 512, reasoning: "reasoning_content", jsonSchema: "refuse", forcedTool: "refuse", streamedUsage: false });
    const out = await hexa(["doctor", config(weak, small), "--context-tokens", "2000"]);

    expect(out.status).toBe(1);
    expect(row(out.stdout, "roles")).toEqual(["actor", "evolver"]);
    expect(row(out.stdout, "native tool calls")).toEqual(["text <tool_call>", "tool_calls"]);
    expect(row(out.stdout, "structured output")).toEqual(["forced tool", "none"]);
    expect(row(out.stdout, "usage reported")).toEqual(["plain no · streamed no", "plain yes · streamed no"]);
    expect(row(out.stdout, "reasoning fields")).toEqual(["<think> in content", "reasoning_content"]);
    expect(row(out.stdout, "context window")).toEqual([
      "unknown (no input count reported for ~2000 tokens)",
      "about 512 tokens: input cut silently (512 reported of ~2000 sent)",
    ]);
    expect(row(out.stdout, "parallel requests")[0]).toMatch(/^serialised \(two at once: \d+ and \d+ ms; one alone: \d+ ms\)$/);
    expect(row(out.stdout, "verdict")).toEqual(["actor cannot work", "evolver ok"]);
    expect(out.stdout).toContain(
      [
        "  actor:",
        `    baseURL: ${weak.url}`,
        "    model: fake-model",
        "    structuredOutput: tool",
        "    concurrency: 1  # the server answers one request at a time",
        "    streaming: false",
        "    # no usage reported: a run counts its own estimate (4 characters a token, marked estimated in usage.jsonl) for this role's tokens, costs and budget caps",
        "    # the actor cannot work here: see the verdict above",
        "  evolver:",
        `    baseURL: ${small.url}`,
        "    model: fake-model",
        "    structuredOutput: text",
      ].join("\n"),
    );
    expect(out.stdout).toContain("    # input is cut near 512 tokens: raise the server's context (llama.cpp -c, Ollama num_ctx, vLLM --max-model-len)");
    expect(out.stderr).toMatch(
      /^hexa doctor: llm\.actor: the model writes its tool calls as text, not as tool_calls \(got <tool_call> in the content\); start the server with its tool-call parser/,
    );
  });

  it("--role checks one role; an unknown model and an unreachable endpoint are named with the fix", async () => {
    const e = await endpoint({ models: ["other-model"] });
    const one = await hexa(["doctor", config(e), "--role", "evolver", "--context-tokens", "200"]);
    expect(row(one.stdout, "roles")).toEqual(["evolver"]);
    expect(row(one.stdout, "model found")).toEqual(["no"]);
    expect(one.stderr).toContain("hexa doctor: llm.evolver.model: fake-model is not served there (got other-model); set llm.evolver.model to one of them");
    expect(one.status).toBe(1);

    const closed = await endpoint({});
    const path = config(closed);
    await closed.close();
    endpoints.splice(endpoints.indexOf(closed), 1);
    const down = await hexa(["doctor", path, "--role", "actor"]);
    expect(row(down.stdout, "reachable")[0]).toMatch(/^no \(fetch failed/);
    expect(down.stderr).toMatch(
      /^hexa doctor: llm\.actor\.baseURL: http:\/\/127\.0\.0\.1:\d+\/v1 does not answer \(got fetch failed.*\); start the server or fix the URL/,
    );
    expect(down.status).toBe(1);
  });

  it("--role vision: how many images a request may carry and whether video is taken, as config lines", async () => {
    const vlm = await endpoint({ maxImages: 8, delayMs: 20 });
    const path = join(tmp(), "vision.yaml");
    writeFileSync(path, ["levels: [catapult]", "llm:", `  vision: { model: fake-model, baseURL: "${vlm.url}", apiKey: test }`].join("\n"));
    const out = await hexa(["doctor", path, "--role", "vision", "--context-tokens", "200"]);

    expect(out.status).toBe(0);
    expect(row(out.stdout, "images")[0]).toMatch(/^8 to 31 per request \(32 refused: HTTP 400: /);
    expect(row(out.stdout, "video_url")).toEqual(["no"]);
    expect(out.stdout).toContain(["    maxImages: 8  # 32 were refused; the limit lies between (vLLM: --limit-mm-per-prompt)", "    video: false"].join("\n"));
  });
});
