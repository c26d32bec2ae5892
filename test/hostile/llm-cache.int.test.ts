import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import type { AssistantTurn, Message, Wire } from "../../src/llm/chat-model.ts";
import { dirCache, requestKey, withCache } from "../../src/llm/response-cache.ts";
import { writerTurn } from "./fixtures/llm-cache-turn.ts";

const writerScript = fileURLToPath(new URL("./fixtures/llm-cache-writer.ts", import.meta.url));
const ask: Message[] = [{ role: "user", content: "Solve seed 3." }];
const sampling = { temperature: 1, maxOutputTokens: 100 };
const tick = () => new Promise<void>((r) => setImmediate(r));

describe("the LLM response cache shared by processes", () => {
  it("two processes writing one key 150 times each, while a third reads: no error, every read a whole entry or a miss", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hexa-hostile-llm-cache-"));
    const key = requestKey("m", sampling, ask, []);
    const writers = ["a", "b"].map((w) => execa(process.execPath, ["--import", "tsx", writerScript, dir, key, w, "150"], { reject: false }));
    let running = true;
    const done = Promise.all(writers).finally(() => (running = false));
    const whole = new Set([JSON.stringify(writerTurn("a")), JSON.stringify(writerTurn("b"))]);
    const seen = { hits: 0, misses: 0, other: [] as string[] };
    const warnings: string[] = [];
    const reader = dirCache(dir, (m) => warnings.push(m));
    while (running) {
      try {
        const turn = reader.get(key);
        if (turn === undefined) seen.misses++;
        else if (whole.has(JSON.stringify(turn))) seen.hits++;
        else seen.other.push(`a torn turn of ${turn.text.length} characters`);
      } catch (e) {
        seen.other.push(`an error: ${(e as Error).message.slice(0, 200)}`);
      }
      await tick();
    }
    const results = await done;
    expect(results.map((r) => [r.exitCode, r.stderr])).toEqual([
      [0, ""],
      [0, ""],
    ]);
    expect(seen.other).toEqual([]);
    expect(warnings).toEqual([]);
    expect(seen.hits).toBeGreaterThan(0);
    expect(readdirSync(dir)).toEqual([`${key}.json`]);
  });

  it("a truncated entry is a miss with a warning naming the file; the endpoint answers and the file is whole again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hexa-hostile-llm-cache-"));
    const answer: AssistantTurn = writerTurn("endpoint");
    let calls = 0;
    const inner: Wire = {
      name: "m",
      invoke: async () => {
        calls++;
        return answer;
      },
    };
    const key = requestKey("m", sampling, ask, []);
    const path = join(dir, `${key}.json`);
    await withCache(inner, dirCache(dir), sampling).invoke(ask, []);
    writeFileSync(path, readFileSync(path, "utf8").slice(0, 100));
    const warnings: string[] = [];
    const turn = await withCache(
      inner,
      dirCache(dir, (m) => warnings.push(m)),
      sampling,
    ).invoke(ask, []);
    expect(turn).toEqual(answer);
    expect(calls).toBe(2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(path);
    expect(warnings[0]).toMatch(/not whole JSON.*treated as a miss/);
    expect(JSON.parse(readFileSync(path, "utf8")).turn).toEqual(answer);
  });
});
