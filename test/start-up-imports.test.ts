import { existsSync, readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { staticValueImports } from "./support/test-tiers.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * Packages that cost hundreds of milliseconds to load: the model layer (langchain, the OpenAI SDK), the browser,
 * the embedded model, the diff of the p2p page. A command loads them in its handler, where its work needs them
 * (docs/benchmarks/startup.md: each command's --help within 2× node's own start).
 */
const HEAVY = /^(@langchain\/.*|langchain|openai|playwright-core|node-llama-cpp|diff)$/;

/** What is loaded before any work: a run's config, a command's help, the families every run loads. */
const ENTRIES: Array<[file: string, what: string]> = [
  ["src/loop/run-config.ts", "a run's config, read by almost every command"],
  ["src/cli/episode.ts", "hexa episode --help (its flags come from the families)"],
  ["src/cli/verify.ts", "hexa verify --help"],
  ["src/app/inspect-report.ts", "hexa inspect's report of a run"],
  ["levels/reward-search/family.ts", "the reward-search family, loaded by every command that plays or searches"],
  ["levels/reward-search/trainer/local-pool.ts", "the reward-search family's trainer pool, loaded with it"],
  ["levels/interphyre/family.ts", "the Interphyre family, loaded with it"],
];

const packageOf = (module: string): string =>
  module
    .split("/")
    .slice(0, module.startsWith("@") ? 2 : 1)
    .join("/");

/** Each heavy package the file's static value imports reach, with the chain of files that reaches it. */
const heavyReached = (entry: string): string[] => {
  const chains = new Map<string, string[]>([[resolve(ROOT, entry), [entry]]]);
  const queue = [resolve(ROOT, entry)];
  const found: string[] = [];
  for (let file = queue.shift(); file; file = queue.shift()) {
    const chain = chains.get(file)!;
    for (const { module } of staticValueImports(readFileSync(file, "utf8"))) {
      if (!module.startsWith(".")) {
        if (HEAVY.test(packageOf(module))) found.push(`${[...chain, module].join(" -> ")}`);
        continue;
      }
      const target = resolve(dirname(file), module);
      if (chains.has(target) || !existsSync(target)) continue;
      chains.set(target, [...chain, relative(ROOT, target)]);
      queue.push(target);
    }
  }
  return found;
};

describe("what loads before a command's work", () => {
  it.each(ENTRIES)("%s (%s) reaches no heavy package through static imports", (entry) => {
    expect(heavyReached(entry)).toEqual([]);
  });

  it("finds a heavy package behind a chain of files (the check itself)", () => {
    expect(heavyReached("src/llm/ask.ts").some((c) => c.endsWith("-> @langchain/core/messages"))).toBe(true);
  });
});
