import { describe, expect, it } from "vitest";
import { correctionsForJudges } from "../../../src/search/p2p-corrections.ts";
import { expectGolden } from "../../../test/support/golden.ts";
import { systemPrompt } from "./author-prompts.ts";
import { tinyRecord } from "./fixtures/tiny-record.ts";
import { verdictPrompt } from "./vision-prompts.ts";

/**
 * The user's corrections in the judges' prompts: the vision judge's verdict turn and the code judge's authoring
 * carry correctionsForJudges' text (golden files); with none, both prompts are what they were.
 */
const INTENT = "hop forward and land on your foot";
const CRITERIA = ["The hopper leaves the ground", "It lands upright on its foot"];
const corrections = correctionsForJudges([
  { text: "land softer", afterIteration: 2 },
  { text: "hop at least twice", afterIteration: 4 },
]);
const env = { header: tinyRecord().header, episodeSteps: 1000, description: "A one-legged robot." };
const verdictOptions = { trail: true, video: false, context: "The floor is flat." };

describe("the judges' prompts and the user's corrections", () => {
  it("the vision judge's verdict turn weighs the corrections after its fixed criteria", () => {
    const text = verdictPrompt(INTENT, CRITERIA, { ...verdictOptions, corrections });
    expect(text).toContain('1. "land softer" (after iteration 2)');
    expectGolden("p2p-vision-verdict-corrections.txt", `${text}\n`);
    expect(verdictPrompt(INTENT, CRITERIA, { ...verdictOptions, corrections: "" })).toBe(verdictPrompt(INTENT, CRITERIA, verdictOptions));
  });

  it("the code judge's author is given the corrections as part of the intent", () => {
    const text = systemPrompt(INTENT, env, corrections);
    expect(text).toContain('2. "hop at least twice" (after iteration 4)');
    expectGolden("p2p-author-system-corrections.txt", `${text}\n`);
    expect(systemPrompt(INTENT, env, "")).toBe(systemPrompt(INTENT, env));
    expect(systemPrompt(INTENT, env)).not.toContain("Corrections");
  });
});
