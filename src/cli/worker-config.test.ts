import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadWorkerConfig, workerTrustOf } from "./worker-config.ts";

const dir = mkdtempSync(join(tmpdir(), "hexa-worker-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe("worker.yaml", () => {
  it("gives the worker its folders, endpoints and a family's own settings; the environment's OPENAI_BASE_URL is allowed too, OpenAI's only when none is named", () => {
    const c = loadWorkerConfig(file("w.yaml", "runsDir: /srv/runs\nallowEndpoints: [http://10.0.0.7:8000/v1]\nreward-search: {trainer: {processes: 2}}\n"), [
      "reward-search",
    ]);
    expect(c.families).toEqual({ "reward-search": { trainer: { processes: 2 } } });
    const trust = workerTrustOf(
      c,
      { allowEndpoints: ["http://127.0.0.1:1/v1"] },
      { OPENAI_BASE_URL: "http://gpu:8000/v1", HEXA_ACTOR_BASE_URL: "http://a:1/v1" },
    );
    expect(trust.runsDir).toBe("/srv/runs");
    expect(trust.endpoints).toEqual(["http://127.0.0.1:1/v1", "http://10.0.0.7:8000/v1", "http://gpu:8000/v1"]);
    expect(workerTrustOf(c, { runsDir: "elsewhere", allowEndpoints: [] }, {}).runsDir).toBe(resolve("elsewhere"));
    expect(workerTrustOf(c, { allowEndpoints: [] }, {}).endpoints).not.toContain("https://api.openai.com/v1");
    expect(workerTrustOf(loadWorkerConfig(undefined, []), { allowEndpoints: [] }, {}).endpoints).toEqual(["https://api.openai.com/v1"]);
  });

  it("refuses an unknown key, a bad URL and a file that is not YAML, naming the file and key, never a password", () => {
    expect(() => loadWorkerConfig(file("typo.yaml", "runDir: x\n"), ["reward-search"])).toThrow(/--config .*typo\.yaml: .*runDir/);
    expect(() => loadWorkerConfig(file("url.yaml", "redis: redis://:SECRET@h:1\nallowEndpoints: [nope]\n"), [])).toThrow(/allowEndpoints\.0/);
    expect(() => loadWorkerConfig(file("url.yaml", "redis: redis://:SECRET@h:1\nallowEndpoints: [nope]\n"), [])).not.toThrow(/SECRET/);
    expect(() => loadWorkerConfig(file("bad.yaml", "a: [\n"), [])).toThrow(/not valid YAML/);
    expect(() => loadWorkerConfig(join(dir, "missing.yaml"), [])).toThrow(/cannot read it \(ENOENT\)/);
    expect(() => workerTrustOf(loadWorkerConfig(undefined, []), { allowEndpoints: ["not a url"] }, {})).toThrow(/--allow-endpoint: not a URL/);
  });
});
