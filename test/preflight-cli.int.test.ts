import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeEndpoint, type EndpointModes, type FakeEndpoint } from "./support/fake-endpoint.ts";
import { hexa } from "./support/hexa-cli.ts";
import { tempDirs } from "./support/temp-files.ts";

const tmp = tempDirs("hexa-preflight-");
const endpoints: FakeEndpoint[] = [];
afterEach(async () => {
  await Promise.all(endpoints.splice(0).map((e) => e.close()));
});

/** The pre-flight on (vitest.config.ts turns it off for the other tests). */
const ON = { HEXA_NO_DOCTOR: "0" };
/** One answer every evolver pass accepts (the server answers every request alike): the runs here test the endpoint records, not learning. */
const EMPTY_BANK_EDIT = JSON.stringify({
  skills: [{ title: "drop it", principle: "a ball dropped on the target falls onto it", when_to_apply: "always", sources: [] }],
  mistakes: [{ description: "none", root_cause: "none", correction: "none", sources: [] }],
  partial_skills: [],
  ops: [],
});

const endpoint = async (modes: EndpointModes) => {
  const e = await startFakeEndpoint({ models: ["fake-model"], ...modes });
  endpoints.push(e);
  return e;
};

const writeConfig = (lines: string[]): string => {
  const path = join(tmp(), "run.yaml");
  writeFileSync(path, lines.join("\n"));
  return path;
};

describe("hexa run's pre-flight (hexa doctor's checks)", () => {
  it("refuses a run whose actor cannot work on its endpoint, before any run directory or actor call", async () => {
    const e = await endpoint({ tools: "text" });
    const runsDir = tmp();
    const cfg = writeConfig(["levels: [down_to_earth]", "agent: react", "llm:", `  actor: { model: fake-model, baseURL: "${e.url}", apiKey: test }`]);
    const out = await hexa(["run", cfg, "--runs-dir", runsDir], { env: ON });

    expect(out.status).toBe(2);
    expect(out.stderr).toContain("hexa: llm.actor: the model writes its tool calls as text, not as tool_calls");
    expect(out.stderr).toContain(`Nothing was spent; hexa doctor ${cfg} shows every check (--no-doctor skips them)`);
    // Only the probe's ten chat calls, none with the actor's prompt.
    expect(e.requests).toHaveLength(10);
    expect(readdirSync(runsDir)).toEqual(["doctor-cache.json"]);
  });

  it("records what each role's endpoint answered as; a resume whose endpoint now answers as another snapshot says so", async () => {
    // Read by the server at each request: the test changes the fingerprint between the run and its resume.
    const modes: EndpointModes = { models: ["fake-model"], servedModel: "fake-model-2026-01", fingerprint: "fp_1", reply: EMPTY_BANK_EDIT };
    const e = await startFakeEndpoint(modes);
    endpoints.push(e);
    const runsDir = tmp();
    const cfg = writeConfig([
      "levels: [down_to_earth]",
      "agent: heuristic",
      "evolver: llm",
      "init: online",
      "rounds: 2",
      "episodesPerRound: 1",
      "llm:",
      `  evolver: { model: fake-model, baseURL: "${e.url}", maxRetries: 0 }`,
    ]);
    const run = await hexa(["run", cfg, "--runs-dir", runsDir], { env: { ...ON, HEXA_EVOLVER_API_KEY: "test" } });
    expect(run.status, run.stderr).toBe(0);
    const dir = join(runsDir, readdirSync(runsDir).find((d) => d !== "doctor-cache.json")!);
    const served = JSON.parse(readFileSync(join(dir, "served-models.json"), "utf8"));
    expect(served).toMatchObject({ schemaVersion: 1, roles: { evolver: { requested: "fake-model", served: "fake-model-2026-01", fingerprint: "fp_1" } } });

    modes.fingerprint = "fp_2";
    const resumed = await hexa(["run", "--resume", dir], { env: { ...ON, HEXA_EVOLVER_API_KEY: "test" } });
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      `warning: llm.evolver now answers as another model than when ${dir} was made (system_fingerprint fp_1 → fp_2); results before and after may differ for that reason`,
    );
    // The capability checks came from the cache (an hour): the resume asked one short call for the fingerprint.
    expect(e.requests.filter((r) => r.body.messages?.length && JSON.stringify(r.body.messages).includes("ready")).length).toBeGreaterThan(0);
  });

  it("hexa compare checks every cell's endpoint first, and a rerun names a cell whose endpoint now answers as another snapshot", async () => {
    const modes: EndpointModes = { models: ["fake-model"], fingerprint: "fp_1", reply: EMPTY_BANK_EDIT };
    const e = await startFakeEndpoint(modes);
    endpoints.push(e);
    const cfg = writeConfig([
      "levels: [down_to_earth]",
      "agent: heuristic",
      "evolver: llm",
      "init: online",
      "rounds: 2",
      "episodesPerRound: 1",
      "llm:",
      `  evolver: { model: fake-model, baseURL: "${e.url}", maxRetries: 0 }`,
    ]);
    const out = join(tmp(), "cmp");
    const args = ["compare", cfg, "--grid", "retriever.topSkills=6", "--runs", "1", "--heldout", "0", "--out", out];
    const env = { ...ON, HEXA_EVOLVER_API_KEY: "test" };
    const first = await hexa(args, { env });
    expect(first.status, first.stderr).toBe(0);
    expect(readdirSync(join(out, "runs"))).toContain("doctor-cache.json");

    modes.fingerprint = "fp_2";
    const again = await hexa(args, { env });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      /warning: llm\.evolver now answers as another model than when .*runs\/c1_topSkills-6__.* was made \(system_fingerprint fp_1 → fp_2\)/,
    );
  });
});
