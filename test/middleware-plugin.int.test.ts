import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeOpenAI } from "./support/fake-openai-server.ts";
import { hexa, ROOT } from "./support/hexa-cli.ts";

/**
 * User middleware through HEXA_MIDDLEWARE (src/app/middleware-plugins.ts): `hexa run` of a ReAct episode on the toy
 * family against the local scripted server runs examples/middleware/tool-latency.ts on every tool call and
 * records it in writers.jsonl; hexa verify replays the run without it; a path that does not load and a module without middleware are refused.
 */

const made: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "hexa-middleware-"));
  made.push(d);
  return d;
};
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

const TOY = join(ROOT, "examples/toy-family/family.ts");
const EXAMPLE = join(ROOT, "examples/middleware/tool-latency.ts");
const env = (middleware: string) => ({ HEXA_ACTOR_API_KEY: "k", HEXA_FAMILIES: TOY, HEXA_MIDDLEWARE: middleware });

const config = (root: string, url: string) => {
  const path = join(root, "react.yaml");
  const endpoint = `{model: m, baseURL: ${JSON.stringify(url)}, maxRetries: 0, timeoutMs: 5000}`;
  writeFileSync(
    path,
    `family: toy\nlevels: [guess_small]\nagent: react\nevolver: heuristic\nrounds: 1\nepisodesPerRound: 1\nconcurrency: 1\nllm: {actor: ${endpoint}}\n`,
  );
  return path;
};

describe("hexa run with HEXA_MIDDLEWARE", () => {
  it("runs the user's middleware on every tool call of the episode and records its name in writers.jsonl", async () => {
    const server = await startFakeOpenAI();
    try {
      const root = tmp();
      const runs = join(root, "runs");
      server.push(
        { text: "Probe the middle.", toolCalls: [{ name: "probe", args: { x: 8 } }] },
        { text: "Commit.", toolCalls: [{ name: "finish", args: { x: 3 } }] },
      );
      const r = await hexa(["run", config(root, server.url), "--runs-dir", runs], { env: env(EXAMPLE) });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^tool-latency: probe \d+\.\d ms$/m);
      expect(r.stderr).toMatch(/^tool-latency: finish \d+\.\d ms$/m);
      expect(r.stderr).toContain("run your middleware after hexa's (HEXA_MIDDLEWARE, recorded in writers.jsonl): ToolLatency (tool-latency.ts)");
      const [run] = readdirSync(runs).filter((d) => !d.startsWith("."));
      const writers = readFileSync(join(runs, run!, "writers.jsonl"), "utf8")
        .trim()
        .split("\n");
      expect(writers.map((l) => (JSON.parse(l) as { middleware?: string[] }).middleware)).toEqual([["ToolLatency (tool-latency.ts)"]]);
      // The middleware must not leak a directory (a home) into the run's records.
      expect(readFileSync(join(runs, run!, "writers.jsonl"), "utf8")).not.toContain(ROOT);
      expect(server.requests).toHaveLength(2);
      // hexa verify replays what was recorded, without the user's middleware, and says it ignored it.
      const v = await hexa(["verify", join(runs, run!)], { env: env(EXAMPLE) });
      expect(v.status, v.stderr).toBe(0);
      expect(v.stdout).toMatch(/identical/);
      expect(v.stderr).toContain("note: HEXA_MIDDLEWARE is ignored: a verify replays the run without your middleware (ToolLatency (tool-latency.ts))");
      expect(v.stderr).not.toContain("tool-latency:");
    } finally {
      await server.close();
    }
  });

  it("refuses a path that does not load and a module that exports no middleware, naming the variable, the path and what it found", async () => {
    const root = tmp();
    const missing = join(root, "missing.mjs");
    const notMiddleware = join(root, "not-middleware.mjs");
    writeFileSync(notMiddleware, "export default { name: 'x', wrapToolCall: 'not a function' };\n");
    const [r, s] = await Promise.all([missing, notMiddleware].map((path) => hexa(["levels", "list", "--family", "toy"], { env: env(path) })));
    expect(r!.status).toBe(2);
    expect(r!.stderr).toContain(`hexa: HEXA_MIDDLEWARE: cannot load ${JSON.stringify(missing)}`);
    expect(s!.status).toBe(2);
    expect(s!.stderr).toContain(
      `hexa: HEXA_MIDDLEWARE: ${JSON.stringify(notMiddleware)} exports no langchain middleware (got an object with keys ["name","wrapToolCall"])`,
    );
  });
});
