import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/errors.ts";
import { settingsOf } from "./search-args.ts";

/** `hexa search --intent`: its settings as search-config.json records them, and every refusal before any training. */
const dir = mkdtempSync(join(tmpdir(), "hexa-search-intent-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const INTENT = "do a backflip and land on your foot";
const base = { env: "hopper", method: "p2p", seed: "0", proposer: "heuristic", budget: 6, intent: INTENT } as const;
const judged = { ...base, "judge-model": "judge-m", "judge-base-url": "http://user:pw@127.0.0.1:9/v1" } as const;
const refusal = (argv: Parameters<typeof settingsOf>[0]): string => {
  try {
    settingsOf(argv);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error("not refused");
};

describe("an intent search's settings", () => {
  it("records the intent, pass threshold 0.9, one judged episode and the judges' endpoints without credentials", () => {
    const s = settingsOf({ ...judged, "vision-model": "vision-m" });
    expect(s.task).toBe("hopper");
    expect(s.intent).toEqual({
      text: INTENT,
      passAt: 0.9,
      episodes: 1,
      judge: { model: "judge-m", baseURL: "http://127.0.0.1:9/v1" },
      vision: { model: "vision-m", maxImages: 50, video: false, trail: false },
    });
    expect(settingsOf({ ...judged, "pass-at": 0.7, "judged-steps": 300 }).intent).toMatchObject({ passAt: 0.7, maxSteps: 300 });
  });

  it("reads the intent from a file, and the user's criteria from theirs", () => {
    const intent = file("intent.txt", `${INTENT}\n`);
    const criteria = file(
      "criteria.txt",
      "# accepted\n- The body turns over backwards\n- It lands on its foot\n3. It stays up after landing\nIt does not fall\nThe flip is one full turn\n",
    );
    const s = settingsOf({ ...judged, intent: undefined, "intent-file": intent, "vision-model": "v", criteria });
    expect(s.intent?.text).toBe(INTENT);
    expect(s.intent?.criteria).toEqual([
      "The body turns over backwards",
      "It lands on its foot",
      "It stays up after landing",
      "It does not fall",
      "The flip is one full turn",
    ]);
    expect(refusal({ ...judged, "vision-model": "v", criteria: file("few.txt", "one thing\nanother thing\n") })).toMatch(
      /--criteria: .*2 criteria: .*give 5–10 criteria/,
    );
    expect(refusal({ ...judged, criteria })).toMatch(/--criteria: the criteria are the vision judge's; give --vision-model/);
  });

  it("refuses without llm.judge, naming the roles and their flags", () => {
    const m = refusal(base);
    expect(m).toMatch(/llm\.judge .* is required: give --judge-model M \(and --judge-base-url URL/);
    expect(m).toContain("llm.vision");
    expect(m).toContain("--vision-model");
  });

  it("refuses another strategy, an environment that is not MuJoCo, and intent flags without an intent", () => {
    expect(refusal({ ...judged, method: "eureka" })).toMatch(/--intent: only the p2p strategy searches an intent \(got --strategy eureka\)/);
    expect(refusal({ ...judged, env: "cartpole" })).toMatch(/--env: cartpole is not a MuJoCo environment/);
    expect(refusal({ task: "hopper", method: "p2p", seed: "0", proposer: "heuristic", budget: 6, "judge-model": "m" })).toMatch(
      /--judge-model: only a search of an intent/,
    );
    expect(refusal({ env: "hopper", method: "p2p", seed: "0", proposer: "heuristic", budget: 6 })).toMatch(/--env: names the environment of a task from words/);
    expect(refusal({ ...judged, task: "hopper" })).toMatch(/--env: give the task once/);
    expect(refusal({ ...judged, "intent-file": file("i2.txt", "x") })).toMatch(/--intent-file: give the intent once/);
  });
});
