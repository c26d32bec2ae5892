import { createAppContext } from "../app/context.ts";
import { describe, expect, it } from "vitest";
import { composeRunConfig } from "../loop/run-config.ts";
import { secretLeaks, secretsInConfig, secretsInEnv } from "./secrets.ts";

/** The shipped families, as hexa has them with no HEXA_FAMILIES. */
const { families } = await createAppContext({});

await families.load();
const schema = composeRunConfig(families.all());

describe("the secrets a bundle looks for", () => {
  it("are the values of the config's marked fields, by path; a Redis URL gives only its password", () => {
    const raw = {
      levels: ["catapult"],
      backend: "redis://user:s3cret-password@10.0.0.5:6379",
      llm: { actor: { apiKey: "sk-actor-canary", model: "m" } },
      skillIndex: { embedding: { apiKey: "emb-canary" } },
    };
    expect(secretsInConfig(raw, schema)).toEqual([
      { source: "backend", value: "s3cret-password" },
      { source: "llm.actor.apiKey", value: "sk-actor-canary" },
      { source: "skillIndex.embedding.apiKey", value: "emb-canary" },
    ]);
    expect(secretsInConfig({ levels: ["catapult"], llm: { actor: { model: "m" } } }, schema)).toEqual([]);
  });

  it("are the environment's credentials and any URL password it holds, not its other variables", () => {
    const env = { OPENAI_API_KEY: "sk-env", HEXA_JOB_KEY: "job", PATH: "/usr/bin", CHROMA_URL: "http://u:pw-in-url@h:8000", HOME: "/root" };
    expect(secretsInEnv(env).map((s) => s.source)).toEqual([
      "environment variable OPENAI_API_KEY",
      "environment variable HEXA_JOB_KEY",
      "the password in environment variable CHROMA_URL",
    ]);
  });

  it("are found in any file's bytes and named by source, never by value; values under 8 characters are not looked for", () => {
    const files = [
      { path: "llm-log.jsonl", bytes: Buffer.from('{"endpoint":"x","note":"sk-actor-canary"}\n') },
      { path: "episodes.jsonl", bytes: Buffer.from("short: abc\n") },
    ];
    const leaks = secretLeaks(files, [
      { source: "environment variable HEXA_ACTOR_API_KEY", value: "sk-actor-canary" },
      { source: "environment variable X_TOKEN", value: "abc" },
    ]);
    expect(leaks).toEqual(["llm-log.jsonl: holds the value of environment variable HEXA_ACTOR_API_KEY"]);
  });
});
