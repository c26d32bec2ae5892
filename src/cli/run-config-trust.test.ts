import { createAppContext } from "../app/context.ts";
import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../loop/run-config.ts";
import { trustedPart, withoutRunChoices } from "./run-config-trust.ts";

/** The shipped families, as hexa has them with no HEXA_FAMILIES. */
const { families } = await createAppContext({});

await families.load();

const config = (raw: Record<string, unknown>) => parseRunConfig(raw, "test", families.all());

describe("the part of a run's config a reader takes without trusting the run", () => {
  it("withholds every endpoint, key, command and path, of both families, and keeps what shapes the records", () => {
    const cfg = config({
      family: "reward-search",
      levels: ["cartpole"],
      name: "forged",
      rounds: 2,
      agent: "react",
      llm: {
        actor: { model: "m-actor", baseURL: "http://127.0.0.1:9/v1", temperature: 0.3, extraBody: { seed: 7 } },
        evolver: { baseURL: "http://127.0.0.1:9/v1" },
        cacheDir: "/tmp/elsewhere/cache",
        auditLog: "/etc/passwd",
      },
      skillIndex: { enabled: true, dataDir: "/tmp/elsewhere/chroma", embedding: { provider: "openai", model: "e", baseURL: "http://127.0.0.1:9/v1" } },
      backend: "redis://127.0.0.1:9",
      offline: { trajectories: ["/tmp/elsewhere/t.jsonl"] },
      rewardSearch: {
        trainer: { command: ["sh", "-c", "touch /tmp/x"], maxSteps: 4096 },
        cacheDir: "/tmp/elsewhere/tc",
        jobsDir: "/tmp/elsewhere/jobs",
        trainSteps: 1024,
      },
    });
    const { config: safe, withheld } = withoutRunChoices(cfg, "test", families.all());
    expect(withheld).toEqual([
      "backend",
      "llm.actor.baseURL",
      "llm.auditLog",
      "llm.cacheDir",
      "llm.evolver.baseURL",
      "offline.trajectories",
      "rewardSearch.cacheDir",
      "rewardSearch.jobsDir",
      "rewardSearch.trainer.command",
      "skillIndex.dataDir",
      "skillIndex.embedding.apiKey",
      "skillIndex.embedding.baseURL",
      "skillIndex.embedding.dims",
      "skillIndex.embedding.model",
      "skillIndex.embedding.provider",
    ]);
    expect(JSON.stringify(safe)).not.toMatch(/elsewhere|127\.0\.0\.1|passwd|touch/);
    expect(safe).toMatchObject({ name: "forged", rounds: 2, agent: "react", levels: ["cartpole"] });
    expect(safe.llm.actor).toMatchObject({ model: "m-actor", temperature: 0.3, extraBody: { seed: 7 } });
    expect((safe as Record<string, any>).rewardSearch).toMatchObject({ trainSteps: 1024, trainer: { maxSteps: 4096 } });
  });

  it("withholds nothing of a config that names nothing outside", () => {
    const cfg = config({ levels: ["catapult"], agent: "heuristic", evolver: "heuristic", seeds: { offset: 56 }, interphyre: { toolSet: "paper" } });
    expect(trustedPart(cfg, families.all()).withheld).toEqual([]);
    expect(withoutRunChoices(cfg, "test", families.all()).config).toEqual(cfg);
  });

  it("keeps an embedded role's settings, the model named as the run named it (a replay keys its requests by it)", () => {
    const actor = { provider: "llama-cpp", model: "models/m.gguf", gpu: false, threads: 1, contextSize: 4096, temperature: 0 };
    const cfg = config({ levels: ["catapult"], agent: "react", llm: { actor, evolver: { model: "e", baseURL: "http://127.0.0.1:9/v1" } } });
    const { data, withheld } = trustedPart(cfg, families.all());
    expect(withheld).toEqual(["llm.evolver.baseURL"]);
    expect((data.llm as { actor: unknown }).actor).toMatchObject(actor);
    // A reader's own command loads no model file a run names: the role is the reader's default.
    const reader = withoutRunChoices(cfg, "test", families.all());
    expect(reader.config.llm.actor).not.toHaveProperty("provider");
    expect(reader.withheld).toEqual(expect.arrayContaining(["llm.actor.model", "llm.actor.provider", "llm.evolver.baseURL"]));
  });
});
