import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCertified } from "../../levels/interphyre/certified-seeds.ts";
import { startFakeOpenAI, type ScriptItem } from "../support/fake-openai-server.ts";
import { hexa, type Out } from "../support/hexa-cli.ts";
import { jsonlOf, tempDirs } from "../support/temp-files.ts";

/**
 * Answers a hostile or broken model server sends: each is one turn's error observation or a record cut with a
 * marker, and the episode, its usage and the run go on (src/llm/tool-args.ts, src/util/cut-text.ts).
 */
const tmp = tempDirs("hexa-hostile-answers-");

const seed = readCertified("two_body_problem")!.seeds[0]!.seed;
const miss = { x: -4.3, y: 4.3, radius: 0.1 };
const STORED = 32 * 1024;
const CUT = / … \[(\d+) characters cut\] … /;

/** `hexa run` of one ReAct episode of as many turns as the script has answers; the run directory and the episode's steps. */
const runAgainst = async (script: ScriptItem[]): Promise<{ r: Out; run: string; steps: Array<Record<string, any>> }> => {
  const server = await startFakeOpenAI(script);
  try {
    const root = tmp();
    const endpoint = `{model: m, baseURL: ${JSON.stringify(server.url)}, maxRetries: 0, timeoutMs: 60000}`;
    const cfg = join(root, "run.yaml");
    writeFileSync(
      cfg,
      `levels: [two_body_problem]\nagent: react\nseeds: {offset: ${seed}}\nrounds: 1\nepisodesPerRound: 1\nactor: {maxTurns: ${script.length}}\nllm: {actor: ${endpoint}}\n`,
    );
    const runs = join(root, "runs");
    const r = await hexa(["run", cfg, "--runs-dir", runs, "--yes"], { env: { HEXA_ACTOR_API_KEY: "k" } });
    const run = join(runs, readdirSync(runs)[0]!);
    const episodes = jsonlOf(join(run, "episodes.jsonl"));
    return { r, run, steps: episodes[0]?.trajectory.steps ?? [] };
  } finally {
    await server.close();
  }
};

describe("hexa run against a server answering with hostile tool calls and contents", () => {
  it("makes arguments nested 10,000 deep the turn's error observation, records the call's usage, and plays on", async () => {
    const deep = `{"x": ${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
    const { r, run, steps } = await runAgainst([
      { text: "deep", toolCalls: [{ name: "simulate_action", rawArgs: deep }] },
      { text: "miss", toolCalls: [{ name: "simulate_action", args: miss }] },
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/Maximum call stack|model endpoint failed/);
    expect(jsonlOf(join(run, "usage.jsonl")).map((u) => u.role)).toEqual(["actor", "actor"]);
    expect(steps).toHaveLength(2);
    expect(steps[0]).toMatchObject({ tool: "simulate_action", ok: false, args: {} });
    expect(steps[0]!.observation).toBe("ERROR: simulate_action: arguments nest deeper than 64 levels; send one flat JSON object of the tool's fields");
    expect(steps[1]).toMatchObject({ tool: "simulate_action", ok: true });
  }, 120_000);

  it("stores a 5 MB content and 40 KB of arguments cut to 32 KB each, with a marker saying how much was cut", async () => {
    // Under the 9 MiB an answer to the default 8192-token cap may take (src/llm/wire-check.ts).
    const content = "a".repeat(5_000_000);
    const { r, run, steps } = await runAgainst([
      { text: content, toolCalls: [{ name: "get_level_state", args: {} }] },
      { text: "long", toolCalls: [{ name: "simulate_action", args: { ...miss, note: "n".repeat(40_000) } }] },
    ]);
    expect(r.status, r.stderr).toBe(0);
    const thought = steps[0]!.thought as string;
    expect(thought.length).toBeLessThanOrEqual(STORED);
    expect(thought.replace(CUT, "").length + Number(CUT.exec(thought)?.[1])).toBe(content.length);
    expect(steps[1]!.ok).toBe(true);
    const args = steps[1]!.args.truncated_arguments as string;
    expect(args.length).toBeLessThanOrEqual(STORED);
    expect(args).toMatch(/^\{"x":-4\.3,"y":4\.3,"radius":0\.1,"note":"n+ … \[\d+ characters cut\] … n+"\}$/);
    expect(statSync(join(run, "episodes.jsonl")).size).toBeLessThan(200_000);
    const log = readFileSync(join(run, "llm-log.jsonl"), "utf8");
    expect(log.length).toBeLessThan(1_000_000);
    expect(log).toMatch(CUT);
  }, 120_000);
});
