import { rmSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../support/fake-openai-server.ts";
import { hexa } from "../support/hexa-cli.ts";
import { jsonlOf, tempDirs } from "../support/temp-files.ts";
import { copyRun, editLine, searchArgs } from "./verify-support.ts";

const tmp = tempDirs("hexa-verify-search-llm-");
let search = "";
let cache = "";
/** The address the proposer was served at; the server is stopped before any replay, so a replay that connected would fail. */
let closedUrl = "";

const code = (k: number) =>
  `function reward(obs, action, nextObs, info) {\n  const alive = ${k};\n  const upright = -Math.abs(nextObs.theta);\n  return { total: alive + upright, components: { alive, upright } };\n}`;
const proposal = (k: number) => ({ text: JSON.stringify({ thought: `Stay alive and keep the pole upright (${k}).`, code: code(k) }) });

/** A search whose two candidates an LLM proposer wrote, against a local scripted server: 2 exchanges, both in llm-log.jsonl. */
beforeAll(async () => {
  const server = await startFakeOpenAI();
  try {
    const dir = tmp();
    search = join(dir, "search");
    cache = join(dir, "cache");
    server.push(proposal(1), proposal(2));
    const r = await hexa(searchArgs(search, join(dir, "cache"), "--proposer", "llm", "--model", "m", "--base-url", server.url), {
      env: { OPENAI_API_KEY: "" },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(server.requests).toHaveLength(2);
    closedUrl = server.url;
  } finally {
    await server.close();
  }
}, 180_000);

/** `hexa verify` with no key and every endpoint variable at the stopped server; the trainings from the search's cache, which the reader names. */
const verify = (dir: string) =>
  hexa(["verify", dir, "--trainer-cache", cache], { env: { OPENAI_BASE_URL: closedUrl, OPENAI_API_KEY: "", HEXA_ACTOR_API_KEY: "" } });

describe("hexa verify on a hexa search directory with the LLM proposer, its server stopped", () => {
  it("answers the proposer from llm-log.jsonl and replays identical (exit 0)", async () => {
    const r = await verify(search);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^identical: 2 candidates, 2 model exchanges, 8 trainings checked/);
    expect(jsonlOf(join(search, "candidates.jsonl")).map((c) => c.thought)).toEqual([
      "Stay alive and keep the pole upright (1).",
      "Stay alive and keep the pole upright (2).",
    ]);
  }, 120_000);

  it("a request the code now asks differently is the divergence, naming the proposer's role and the first line that differs", async () => {
    const copy = copyRun(search, tmp());
    // Both proposals were asked the same request (two first samples of one iteration): as if an older prompt asked both.
    for (const line of [0, 1])
      editLine(join(copy, "llm-log.jsonl"), line, (l) => {
        l.messages[1].content = `An older prompt said this.\n${l.messages[1].content}`;
        l.requestSha256 = "0".repeat(64);
      });
    const r = await verify(copy);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toContain("diverged: the replay asked the actor something the search never asked");
    expect(r.stdout).toContain("recorded: message 2 (user) line 1: An older prompt said this.");
  }, 120_000);

  it("two samples of one iteration with the same code train once and replay identical, the second recorded as cached", async () => {
    const server = await startFakeOpenAI();
    const dir = tmp();
    const same = join(dir, "search");
    try {
      server.push(proposal(3), proposal(3));
      const r = await hexa(searchArgs(same, join(dir, "cache"), "--proposer", "llm", "--model", "m", "--base-url", server.url), {
        env: { OPENAI_API_KEY: "" },
      });
      expect(r.status, r.stderr).toBe(0);
    } finally {
      await server.close();
    }
    const byIndex = jsonlOf(join(same, "candidates.jsonl")).sort((a, b) => Number(a.index) - Number(b.index));
    expect(byIndex.map((c) => (c.outcome as { cached: boolean }).cached)).toEqual([false, true]);
    const v = await hexa(["verify", same, "--trainer-cache", join(dir, "cache")], { env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "" } });
    expect(v.status, v.stdout).toBe(0);
    expect(v.stdout).toMatch(/^identical: 2 candidates, 2 model exchanges/);
  }, 180_000);

  it("a search whose llm-log.jsonl is missing cannot be verified (exit 2) and names the file", async () => {
    const copy = copyRun(search, tmp());
    rmSync(join(copy, "llm-log.jsonl"));
    const r = await verify(copy);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${join(copy, "llm-log.jsonl")}: missing`);
  }, 60_000);
});
