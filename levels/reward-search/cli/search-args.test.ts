import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { settingsOf } from "./search-args.ts";

const dir = mkdtempSync(join(tmpdir(), "hexa-search-args-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const yaml = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe("hexa search's settings as search-config.json records them", () => {
  it("spells out every default, with the trainer cache absolute, so a replay needs nothing else", () => {
    const s = settingsOf({ task: "cartpole", method: "eureka", seed: "4", proposer: "heuristic", budget: 3, "trainer-cache": "rel/cache" });
    expect(s).toMatchObject({ method: "eureka", task: "cartpole", seed: 4, search: { budget: 3, eureka: { samples: 4 } }, options: {}, proposer: "heuristic" });
    expect(s.rewardSearch.cacheDir).toBe(`${process.cwd()}/rel/cache`);
    expect(s.finalTrainings).toBe(3);
    expect(s.llm).toBeUndefined();
  });

  it("places the trainer cache beside the search directory, in its parent folder, unless --trainer-cache names one", () => {
    const argv = { task: "cartpole", method: "eureka", seed: "4", proposer: "heuristic", budget: 3 } as const;
    expect(settingsOf(argv, "/data/searches/eureka-cartpole-s4").rewardSearch.cacheDir).toBe("/data/searches/.trainer-cache");
    expect(settingsOf({ ...argv, "trainer-cache": "/elsewhere" }, "/data/searches/x").rewardSearch.cacheDir).toBe("/elsewhere");
  });

  it("records the proposer's model and endpoint, never a key, nor a password written into the endpoint's URL", () => {
    const s = settingsOf({
      task: "cartpole",
      method: "rf-agent",
      seed: "0",
      proposer: "llm",
      model: "m",
      "base-url": "http://alice:hunter2@127.0.0.1:9/v1",
      "api-key": "sk-secret-1",
    });
    expect(s.llm).toEqual({ model: "m", baseURL: "http://127.0.0.1:9/v1" });
    expect(JSON.stringify(s)).not.toMatch(/hunter2|alice|sk-secret-1/);
  });

  it("takes the proposer's model from --llm-config's llm.actor, an embedded one recorded by its path", () => {
    const argv = { task: "cartpole", method: "eureka", seed: "0", proposer: "llm" } as const;
    const file = yaml("embedded.yaml", "llm:\n  actor: {provider: llama-cpp, model: models/tiny.gguf, threads: 1}\n");
    expect(settingsOf({ ...argv, "llm-config": file }).llm).toEqual({ model: "models/tiny.gguf" });
    expect(() => settingsOf({ ...argv, "llm-config": file, model: "m" })).toThrow("--llm-config: the proposer's model is the file's llm.actor; drop --model");
    expect(() => settingsOf({ ...argv, "llm-config": yaml("none.yaml", "llm: {}\n") })).toThrow(/llm\.actor is missing/);
    expect(() => settingsOf({ ...argv, "llm-config": yaml("bad.yaml", "llm:\n  actor: {provider: llama-cpp}\n") })).toThrow(
      /--llm-config .*bad\.yaml: llm\.actor\.model/,
    );
  });
});
