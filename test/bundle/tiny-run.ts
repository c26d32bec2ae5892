import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { hexa } from "../support/hexa-cli.ts";

/** Secrets placed where a careless user puts them: in the config file and in the environment of the run. */
export const CANARY = {
  config: "sk-config-canary-7f3a9c1e55d2",
  env: "sk-env-canary-c0ffee12345678",
  openai: "sk-openai-canary-0badf00d4242",
} as const;

export const CANARY_ENV = { HEXA_ACTOR_API_KEY: CANARY.env, OPENAI_API_KEY: CANARY.openai };

/** A heuristic run of one round on one level (a few seconds, no model), made by the real CLI; returns its config file and run directory. */
export const tinyRun = async (root: string): Promise<{ config: string; runDir: string }> => {
  const config = join(root, "tiny.yaml");
  writeFileSync(
    config,
    [
      "# a tiny heuristic run, with a key a careless user left in it",
      "levels: [catapult]",
      "agent: heuristic",
      "evolver: heuristic",
      "init: off2on",
      "update: evolving",
      "seeds: { offset: 56 }",
      "rounds: 1",
      "episodesPerRound: 2",
      "offline: { episodes: 1 }",
      `llm: { actor: { apiKey: ${CANARY.config} } }`,
      "",
    ].join("\n"),
  );
  const runs = join(root, "runs");
  const out = await hexa(["run", config, "--runs-dir", runs], { env: CANARY_ENV });
  expect(out.stderr).not.toMatch(/hexa: /);
  expect(out.status).toBe(0);
  const [id] = readdirSync(runs);
  return { config, runDir: join(runs, id!) };
};
