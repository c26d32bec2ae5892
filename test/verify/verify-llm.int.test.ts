import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../support/fake-openai-server.ts";
import { hexa } from "../support/hexa-cli.ts";
import { jsonlOf, tempDirs } from "../support/temp-files.ts";
import { copyRun, editLine, runIn } from "./verify-support.ts";

const tmp = tempDirs("hexa-verify-llm-");
let run = "";
/** The address the run's models were served at; the server is stopped before any replay, so a replay that connected would fail. */
let closedUrl = "";
const KEYS = { HEXA_ACTOR_API_KEY: "k", HEXA_EVOLVER_API_KEY: "k" };

/** An LLM run (actor and evolver) against a local scripted server: 4 exchanges, all in llm-log.jsonl. */
beforeAll(async () => {
  const server = await startFakeOpenAI();
  try {
    const dir = tmp();
    const cfg = join(dir, "llm.yaml");
    const endpoint = `{model: m, baseURL: ${JSON.stringify(server.url)}, maxRetries: 0, timeoutMs: 5000}`;
    writeFileSync(
      cfg,
      `levels: [two_body_problem]\nagent: hexa\nevolver: llm\nrounds: 1\nepisodesPerRound: 1\noffline: {episodes: 1}\nllm: {actor: ${endpoint}, evolver: ${endpoint}}\n`,
    );
    const miss = { text: "Commit.", toolCalls: [{ name: "finish", args: { x: -4.3, y: 4.3, radius: 0.1 } }] };
    const say = (v: unknown) => ({ text: JSON.stringify(v) });
    const principle = { principle: "Drop the red ball onto the blue one from high up.", when_to_apply: "the blue ball rests on a ledge", sources: [] };
    server.push(
      miss,
      say({
        mistakes: [{ description: "Committed a corner ball", root_cause: "assumed it rolls", correction: "place it above the blue ball", sources: [] }],
        partial_skills: [{ title: "Drop from high", ...principle }],
      }),
      miss,
      say({
        ops: [
          { op: "keep", id: "s0_1" },
          { op: "keep", id: "m0_1" },
        ],
      }),
    );
    const r = await hexa(["run", cfg, "--runs-dir", join(dir, "runs"), "--no-doctor"], { env: KEYS });
    expect(r.status, r.stderr).toBe(0);
    expect(server.requests).toHaveLength(4);
    run = runIn(join(dir, "runs"));
    closedUrl = server.url;
  } finally {
    await server.close();
  }
}, 120_000);

/** `hexa verify` with no key and every endpoint variable at the stopped server. */
const verify = (dir: string) =>
  hexa(["verify", dir], { env: { OPENAI_BASE_URL: closedUrl, OPENAI_API_KEY: "", HEXA_ACTOR_API_KEY: "", HEXA_EVOLVER_API_KEY: "" } });

describe("hexa verify on an LLM run, its server stopped", () => {
  it("answers every request from llm-log.jsonl and replays identical (exit 0), with no endpoint to reach", async () => {
    const r = await verify(run);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^identical: 2 episodes, \d+ bank events, 4 model exchanges, 0 trainings checked/);
  }, 120_000);

  it("a request the code now asks differently (a changed prompt) is the divergence, at the first request it changes, naming the role and the line", async () => {
    // As if the run had been made by a hexa whose actor prompt said something else: the record's first request differs from the replay's.
    const copy = copyRun(run, tmp());
    const log = join(copy, "llm-log.jsonl");
    editLine(log, 0, (l) => {
      l.messages[1].content = `An older prompt said this.\n${l.messages[1].content}`;
      l.requestSha256 = "0".repeat(64);
    });
    const r = await verify(copy);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toContain("diverged: the replay asked the actor something the run never asked");
    expect(r.stdout).toMatch(/field: +request \(nearest recorded: llm-log\.jsonl line 1\)/);
    expect(r.stdout).toContain("recorded: message 2 (user) line 1: An older prompt said this.");
    const first = String((jsonlOf(join(run, "llm-log.jsonl"))[0]!.messages as { content: string }[])[1]!.content).split("\n")[0];
    expect(r.stdout).toContain(`replayed: message 2 (user) line 1: ${first}`);
  }, 120_000);

  it("a run whose llm-log.jsonl is missing cannot be verified (exit 2) and names the file", async () => {
    const copy = copyRun(run, tmp());
    rmSync(join(copy, "llm-log.jsonl"));
    const r = await verify(copy);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/cannot verify .*llm-log\.jsonl: missing/);
  }, 60_000);

  it("a log written before requests were recorded in full (no requestSha256) cannot be verified (exit 2), naming the line and field", async () => {
    const copy = copyRun(run, tmp());
    editLine(join(copy, "llm-log.jsonl"), 2, (l) => {
      delete l.requestSha256;
    });
    const r = await verify(copy);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/llm-log\.jsonl:3: requestSha256: absent/);
  }, 60_000);
});
