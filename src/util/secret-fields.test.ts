import { createAppContext } from "../app/context.ts";
import { describe, expect, it } from "vitest";
import { composeRunConfig, parseRunConfig, runConfigYaml } from "../loop/run-config.ts";
import { credentialLikePaths, secretPaths, urlWithoutPassword, withoutSecrets } from "./secret-fields.ts";

/** The shipped families, as hexa has them with no HEXA_FAMILIES. */
const { families } = await createAppContext({});

const schema = composeRunConfig([]);
await families.load();
/** The config with every family's slice: a credential a family declares must be marked too. */
const everyFamily = composeRunConfig(families.all());

describe("the config's secret fields", () => {
  it("are every field whose name reads like a credential, marked in the schema (a new apiKey or token must be marked too)", () => {
    const marked = secretPaths(everyFamily);
    expect(marked).toEqual(
      expect.arrayContaining(["llm.actor.apiKey", "llm.evolver.apiKey", "llm.synthesiser.apiKey", "skillIndex.embedding.apiKey", "backend"]),
    );
    expect(credentialLikePaths(everyFamily).filter((p) => !marked.includes(p))).toEqual([]);
  });

  it("are dropped from a copy (keys) or cleaned (a URL's password), the input left as it was", () => {
    const cfg = parseRunConfig(
      {
        family: "interphyre",
        levels: ["catapult"],
        backend: "redis://:CANARY@10.0.0.5:6379",
        llm: { actor: { apiKey: "CANARY", baseURL: "http://127.0.0.1:1/v1" }, evolver: { apiKey: "CANARY" } },
        skillIndex: { embedding: { provider: "openai", model: "e", apiKey: "CANARY" } },
      },
      "test",
    );
    const stripped = withoutSecrets(cfg, schema);
    expect(JSON.stringify(stripped)).not.toContain("CANARY");
    expect(stripped.backend).toBe("redis://10.0.0.5:6379");
    expect(stripped.llm.actor).toMatchObject({ baseURL: "http://127.0.0.1:1/v1" });
    expect(cfg.llm.actor).toMatchObject({ apiKey: "CANARY" });
    expect(runConfigYaml(cfg)).not.toContain("CANARY");
    expect(urlWithoutPassword("http://u:p@h")).toBe("http://u@h");
    // A password whose unencoded "/" or "#" breaks the URL's parse is hidden all the same.
    expect(urlWithoutPassword("redis://:pa/ss@10.0.0.5:6379")).toBe("redis://***@10.0.0.5:6379");
    expect(urlWithoutPassword("redis://:6379/se#cret@h")).toBe("redis://***@h");
    expect(urlWithoutPassword("local")).toBe("local");
  });

  it("never reach a config error's message: the value is named a secret, not shown", () => {
    expect(() => parseRunConfig({ family: "interphyre", levels: ["catapult"], llm: { actor: { apiKey: ["CANARY"] } } }, "c.yaml")).toThrow(
      /llm\.actor\.apiKey: .*\(got a secret, not shown\)/,
    );
    expect(() => parseRunConfig({ family: "interphyre", levels: ["catapult"], llm: { actor: { apiKey: ["CANARY"] } } }, "c.yaml")).not.toThrow(/CANARY/);
  });
});
