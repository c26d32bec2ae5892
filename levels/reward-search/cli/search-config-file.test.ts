import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/errors.ts";
import { settingsOf } from "./search-args.ts";
import { argsOfConfig, inConfigTermsOf } from "./search-config-file.ts";

/** `hexa search --config FILE`: the same settings as the flags it stands for, and the flags' refusals in the config's terms. */
const dir = mkdtempSync(join(tmpdir(), "hexa-search-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const EXAMPLE = fileURLToPath(new URL("../../../examples/intent-search/search.yaml", import.meta.url));

const CRITERIA = "The hopper leaves the ground\nIt turns over backwards\nIt lands on its foot\nIt stays up\nIt does not fall\n";
const write = (name: string, text: string, at = dir) => {
  mkdirSync(at, { recursive: true });
  const path = join(at, name);
  writeFileSync(path, text);
  return path;
};
const LLM = "llm:\n  judge: {model: judge-m, baseURL: 'http://127.0.0.1:9/v1'}\n  vision: {model: vision-m, maxImages: 8}\n";
/** A config in its own folder: `intent` is the search.intent mapping's YAML. */
const config = (intent: string, top = "env: hopper\n", llm = LLM, at = mkdtempSync(join(dir, "c-"))) =>
  write("search.yaml", `${top}search:\n  budget: 6\n  p2p: {configs: 3, trainSeeds: 2}\n  intent: ${intent}\n${llm}`, at);
const settingsOfConfig = (path: string) => inConfigTermsOf(path, () => settingsOf(argsOfConfig(path)));
const refusal = (path: string): string => {
  try {
    settingsOfConfig(path);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error("not refused");
};

describe("an intent search from a config file", () => {
  it("resolves to the settings of the flags it stands for", () => {
    const at = mkdtempSync(join(dir, "same-"));
    write("criteria.txt", CRITERIA, at);
    write("intent.txt", "do a backflip\n", at);
    const fromConfig = settingsOfConfig(
      config("{file: intent.txt, passAt: 0.8, episodes: 2, maxSteps: 300, criteria: criteria.txt}", undefined, undefined, at),
    );
    const fromFlags = settingsOf({
      env: "hopper",
      method: "p2p",
      proposer: "heuristic",
      budget: 6,
      configs: 3,
      "train-seeds": 2,
      "intent-file": join(at, "intent.txt"),
      "pass-at": 0.8,
      "judged-episodes": 2,
      "judged-steps": 300,
      criteria: join(at, "criteria.txt"),
      "judge-model": "judge-m",
      "judge-base-url": "http://127.0.0.1:9/v1",
      "vision-model": "vision-m",
      "vision-max-images": 8,
    });
    expect(fromConfig).toEqual(fromFlags);
    expect(fromConfig.intent).toMatchObject({ text: "do a backflip", passAt: 0.8, episodes: 2, maxSteps: 300 });
    expect(fromConfig.intent?.criteria).toHaveLength(5);
    expect(fromConfig.search.p2p).toMatchObject({ configs: 3, trainSeeds: 2 });
  });

  it("reads the shipped example", () => {
    const s = settingsOfConfig(EXAMPLE);
    expect(s.task).toBe("hopper");
    expect(s.intent).toMatchObject({ text: "Do a backflip and land on your foot.", passAt: 0.9, episodes: 2, judge: { model: "judge-model" } });
    expect(s.intent?.criteria).toHaveLength(5);
  });

  it("refuses a bad field naming its path in the config", () => {
    expect(refusal(config("{text: flip, passAt: 2}"))).toMatch(/search\.yaml: search\.intent\.passAt: .*<=1/);
    expect(refusal(config("{text: flip, episodes: 0}"))).toMatch(/: search\.intent\.episodes: /);
    expect(refusal(config("{text: flip, colour: red}"))).toMatch(/: search\.intent: Unrecognized key: "colour"/);
    expect(refusal(config("{text: flip}", "env: hopper\nsearch_: 1\n"))).toMatch(/search\.yaml: \(the file\): Unrecognized key: "search_"/);
    const unknown = write("search.yaml", `env: hopper\nsearch:\n  budgt: 6\n  intent: {text: flip}\n${LLM}`, mkdtempSync(join(dir, "u-")));
    expect(refusal(unknown)).toMatch(/: search\.budgt: not a setting of a search/);
  });

  it("refuses as the flags do, in the config's terms: another strategy, not MuJoCo, no llm.judge", () => {
    expect(refusal(config("{text: flip}", "env: hopper\nmethod: eureka\n"))).toMatch(
      /search\.intent\.text: only the p2p strategy searches an intent \(got method eureka\); give method p2p/,
    );
    expect(refusal(config("{text: flip}", "env: cartpole\n"))).toMatch(/: env: cartpole is not a MuJoCo environment/);
    const m = refusal(config("{text: flip}", "env: hopper\n", ""));
    expect(m).toMatch(/llm\.judge .* is required: give llm\.judge\.model M \(and llm\.judge\.baseURL URL/);
    expect(refusal(config("{text: flip, criteria: c.txt}", "env: hopper\n", "llm:\n  judge: {model: j}\n"))).toMatch(
      /search\.intent\.criteria: the criteria are the vision judge's; give llm\.vision\.model too/,
    );
  });

  it("reads no file outside the config's folder: absolute, upward or through a link", () => {
    const outside = write("secret.txt", "outside the config's folder\n");
    expect(refusal(config(`{file: ${outside}}`))).toMatch(/search\.intent\.file: .* is outside the config's folder/);
    expect(refusal(config("{file: ../secret.txt}"))).toMatch(/search\.intent\.file: .* is outside the config's folder/);
    const at = mkdtempSync(join(dir, "link-"));
    symlinkSync(outside, join(at, "criteria.txt"));
    expect(refusal(config("{text: flip, criteria: criteria.txt}", undefined, undefined, at))).toMatch(
      /search\.intent\.criteria: "criteria\.txt" is outside the config's folder/,
    );
    expect(refusal(config("{file: missing.txt}"))).toMatch(/search\.intent\.file: .*missing\.txt: no such file/);
  });
});
