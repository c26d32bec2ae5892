import { describe, expect, it } from "vitest";
import { EpisodeJobData } from "../backend/redis/jobs.ts";
import { checkJobBank } from "./job-bank.ts";

/** An episode job's bank carries its lessons to the worker, checked there as a bank file is (docs/spec/method.md §3.1). */

const caps = { skills: 10, mistakes: 5 };
const lesson = { kind: "lesson", id: "l1_1", text: "Drop from high.", tier: "HARD", generation: 1, parents: [], history: [] };

describe("an episode job's lessons", () => {
  it("survive the job's schema, so a worker's prompt shows what a local episode's shows", () => {
    const bank = EpisodeJobData.shape.bank.parse({ skills: [], mistakes: [], lessons: [lesson] });
    expect(bank.lessons).toEqual([lesson]);
    expect("lessons" in EpisodeJobData.shape.bank.parse({ skills: [], mistakes: [] })).toBe(false);
  });

  it("are checked by the worker, a bad one refused naming the job, the lesson and the field", () => {
    expect(checkJobBank("j1", { skills: [], mistakes: [], lessons: [lesson] }, caps, undefined).lessons).toEqual([lesson]);
    expect(() => checkJobBank("j1", { skills: [], mistakes: [], lessons: [{ ...lesson, tier: "MAYBE" }] }, caps, undefined)).toThrow(
      /job j1: bank: lesson 'l1_1' \(lessons\[0\]\): tier: .*\(got "MAYBE"\)/,
    );
  });
});
