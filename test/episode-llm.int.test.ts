import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { runLlmEpisode, type LlmAgent } from "../agents/run-episode.ts";
import { ActorConfig } from "../agents/actor-config.ts";
import { INTERPHYRE_WORDS } from "../levels/interphyre/family.ts";
import { openInterphyreEnv } from "../levels/interphyre/task-env.ts";
import { Trajectory } from "../src/store/trajectory.ts";
import { createInstance } from "../levels/interphyre/instance.ts";
import { usageRecord } from "../src/llm/accounting.ts";
import { LlmConfig } from "../src/llm/config.ts";
import { createRoleModel } from "../src/llm/role-model.ts";
import { readCertified } from "../levels/interphyre/certified-seeds.ts";
import { startFakeOpenAI, type FakeOpenAI, type ScriptItem } from "./support/fake-openai-server.ts";

/** The real ChatOpenAI client against a local OpenAI-compatible server with scripted answers and faults. */
const certified = readCertified("two_body_problem")!.seeds[0]!;
const [x, y, radius] = certified.solution;
const solution = { x, y, radius };
const miss = { x: -4.3, y: 4.3, radius: 0.1 };
const instance = createInstance("two_body_problem", certified.seed);

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const episode = async (script: ScriptItem[], opts: { agent?: LlmAgent; maxTurns?: number; cacheDir?: string; audit?: string[]; streaming?: boolean } = {}) => {
  server ??= await startFakeOpenAI();
  server.push(...script);
  const llm = LlmConfig.parse({
    actor: { model: "gpt-4.1-mini", baseURL: server.url, apiKey: "test", maxRetries: 3, timeoutMs: 1500, streaming: opts.streaming ?? false },
    ...(opts.cacheDir ? { cacheDir: opts.cacheDir } : {}),
  });
  const audit = opts.audit;
  const model = createRoleModel("actor", llm, { env: {}, sleep: async () => {}, ...(audit ? { auditSink: (l: string) => void audit.push(l) } : {}) });
  const t = await runLlmEpisode(
    {
      agent: opts.agent ?? "react",
      open: (maxTurns) => openInterphyreEnv({ level: instance.level, seed: instance.seed, horizon: 2000, toolSet: "extended", maxTurns }),
      words: INTERPHYRE_WORDS,
      config: ActorConfig.parse({ maxTurns: opts.maxTurns ?? 25 }),
    },
    { model, costOf: (turn) => usageRecord("actor", turn, llm.prices).costUsd, now: () => 0 },
  );
  return Trajectory.parse(t);
};

describe("actor episodes against an OpenAI-compatible server", () => {
  it("auto-finishes, and accounts tokens and cost per the price table", async () => {
    const t = await episode([
      { text: "Let me look.", toolCalls: [{ name: "get_level_state", args: {} }], usage: { prompt: 1000, completion: 50, cached: 200 } },
      {
        text: "Try it.",
        toolCalls: [{ name: "simulate_action", args: solution }],
        usage: { prompt: 2000, completion: 60, cached: 1000 },
        model: "gpt-4.1-mini-2025-04-14",
      },
    ]);
    expect(t).toMatchObject({ success: true, stopReason: "success", turns: 2, model: "gpt-4.1-mini-2025-04-14" });
    expect(t.usage).toMatchObject({ input: 3000, output: 110, cached: 1200, calls: 2 });
    // gpt-4.1-mini: $0.4 / 1M input, $0.1 / 1M cached input, $1.6 / 1M output.
    expect(t.usage.costUsd).toBeCloseTo((1800 * 0.4 + 1200 * 0.1 + 110 * 1.6) / 1e6, 12);
    const sent = server!.requests[1]!.body;
    expect(sent.tools!.map((tool) => tool.function.name)).toContain("intervene");
    expect(sent.messages.at(-1)).toMatchObject({ role: "tool" });
    expect(String(sent.messages.at(-1)!.content)).toMatch(/^\[turn 1 of 25 used; 24 left\]\nLevel two_body_problem/);
  });

  it("counts a turn for each fault the model makes, and survives endpoint faults by retrying", async () => {
    const t = await episode(
      [
        { fault: "429", retryAfter: 1 },
        { text: "thinking only" },
        { fault: "500" },
        { empty: true },
        { fault: "drop" },
        { toolCalls: [{ name: "simulate_action", args: solution }], malformedArgs: true },
        { fault: "timeout" },
        { toolCalls: [{ name: "teleport", args: {} }] },
        {
          toolCalls: [
            { name: "check_placement", args: miss },
            { name: "simulate_action", args: solution },
          ],
        },
        { toolCalls: [{ name: "finish", args: miss }] },
      ],
      { maxTurns: 6 },
    );
    expect(t.steps.map((s) => [s.tool, s.ok])).toEqual([
      ["(none)", false],
      ["(none)", false],
      ["simulate_action", false],
      ["teleport", false],
      ["check_placement", true],
      ["finish", true],
    ]);
    expect(t).toMatchObject({ success: false, stopReason: "finish", turns: 6 });
    expect(t.steps[2]!.observation).toMatch(/not valid JSON/);
    expect(t.steps[3]!.observation).toMatch(/unknown tool 'teleport'/);
    expect(t.steps[4]!.observation).toMatch(/only the first \(check_placement\) was executed/);
    expect(server!.requests).toHaveLength(10);
  });

  it("ends with stopReason error, keeping the trajectory, when the endpoint keeps failing", async () => {
    const t = await episode([{ toolCalls: [{ name: "get_level_state", args: {} }] }, { fault: "500" }, { fault: "500" }, { fault: "500" }, { fault: "500" }]);
    expect(t).toMatchObject({ success: false, stopReason: "error", turns: 25 });
    expect(t.error).toMatch(/gpt-4\.1-mini/);
    expect(t.error).toContain(server!.url);
    expect(t.steps).toHaveLength(1);
  });

  it("exhausts the budget when nothing succeeds (streaming)", async () => {
    const probes: ScriptItem[] = Array.from({ length: 3 }, () => ({ text: "probe", toolCalls: [{ name: "simulate_action", args: miss }] }));
    const t = await episode(probes, { maxTurns: 3, streaming: true });
    expect(t).toMatchObject({ success: false, stopReason: "budget", turns: 3 });
    expect(server!.requests.every((r) => r.body.stream === true)).toBe(true);
  });

  it("replays a finished episode from the response cache without any HTTP call, and audits every call", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hexa-cache-"));
    const script: ScriptItem[] = [
      { text: "look", toolCalls: [{ name: "get_level_state", args: {} }] },
      { text: "go", toolCalls: [{ name: "simulate_action", args: solution }] },
    ];
    const audit: string[] = [];
    const first = await episode(script, { cacheDir: dir, audit });
    expect(server!.requests).toHaveLength(2);
    const second = await episode([], { cacheDir: dir, audit });
    expect(server!.requests).toHaveLength(2);
    expect(second.steps).toEqual(first.steps);
    expect(second.usage.costUsd).toBe(0);
    const lines = audit.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(4);
    expect(lines.map((l) => l.fromCache)).toEqual([false, false, true, true]);
    expect(JSON.stringify(lines[1])).toContain("simulate_action");
  });

  it("Reflexion puts its reflection into the second trial's prompt", async () => {
    const probes: ScriptItem[] = Array.from({ length: 12 }, () => ({ toolCalls: [{ name: "simulate_action", args: miss }] }));
    const t = await episode(
      [
        ...probes,
        { text: "The corner ball never reached the green ball. Place it above the green ball next." },
        { toolCalls: [{ name: "simulate_action", args: solution }] },
      ],
      { agent: "reflexion" },
    );
    expect(t).toMatchObject({ agent: "reflexion", success: true, turns: 13, maxTurns: 24 });
    const reflectRequest = server!.requests[12]!.body;
    expect(reflectRequest.tools).toBeUndefined();
    const secondTrial = server!.requests[13]!.body.messages[0]!.content as string;
    expect(secondTrial).toContain("Place it above the green ball next.");
  });
});

describe("hexa episode", () => {
  const run = promisify(execFile);
  it("runs against the test server and writes the trajectory", async () => {
    server = await startFakeOpenAI([
      { text: "look", toolCalls: [{ name: "get_level_state", args: {} }] },
      { text: "go", toolCalls: [{ name: "simulate_action", args: solution }] },
    ]);
    const out = join(mkdtempSync(join(tmpdir(), "hexa-ep-")), "t.json");
    const args = [
      "bin/hexa.js",
      "episode",
      "two_body_problem",
      "--seed",
      String(certified.seed),
      "--model",
      "gpt-4.1-mini",
      "--base-url",
      server.url,
      "--api-key",
      "test",
      "--out",
      out,
    ];
    const { stdout, stderr } = await run(process.execPath, args, { env: { ...process.env, OPENAI_API_KEY: "" } });
    expect(stdout).toMatch(/^SUCCESS in 2 turns; agent react, model gpt-4\.1-mini/);
    expect(stdout).toMatch(/2 calls, \$0\.0000/);
    expect(stderr).toMatch(/turn {2}2 {2}simulate_action/);
    expect(Trajectory.parse(JSON.parse(readFileSync(out, "utf8")))).toMatchObject({ success: true, level: "two_body_problem" });
    // A local model missing from the price table: no key needed, and the cost is not claimed to be $0.
    server.push({ toolCalls: [{ name: "simulate_action", args: solution }] });
    const local = ["bin/hexa.js", "episode", "two_body_problem", "--seed", String(certified.seed), "--model", "llama3", "--base-url", server.url];
    const second = await run(process.execPath, local, { env: { ...process.env, OPENAI_API_KEY: "" } });
    expect(second.stdout).toMatch(/cost unknown \(llama3 is not in the price table\)/);
  });

  it("runs the heuristic agent with no server, and says so", async () => {
    const d = readCertified("down_to_earth")!.seeds[0]!;
    const { stdout } = await run(process.execPath, ["bin/hexa.js", "episode", "down_to_earth", "--seed", String(d.seed), "--agent", "heuristic"]);
    expect(stdout).toMatch(/agent heuristic \(no LLM\), model none \(heuristic\)/);
  });
});
