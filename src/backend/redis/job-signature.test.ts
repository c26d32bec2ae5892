import { describe, expect, it } from "vitest";
import { signatureProblem, signJob } from "./job-signature.ts";

const KEY = "k".repeat(32);
const data = { schemaVersion: 2, run: "r", config: { b: 1, a: [1, 2] } };

describe("job signatures", () => {
  it("hold for the job as signed, whatever the key order Redis gives back", () => {
    const signed = signJob(KEY, "episodes", "r/e1", data);
    const reordered = JSON.parse(
      JSON.stringify({ config: { a: [1, 2], b: 1 }, run: "r", schemaVersion: 2, ...(signed as unknown as { signature: string; signedAt: string }) }),
    );
    expect(signatureProblem(KEY, "episodes", "r/e1", reordered)).toBeNull();
  });

  it("fail for changed data, another job id, another queue, another key, or none", () => {
    const signed = signJob(KEY, "episodes", "r/e1", data);
    expect(signatureProblem(KEY, "episodes", "r/e1", { ...signed, run: "other" })).toMatch(/does not match this worker's job key; set the same HEXA_JOB_KEY/);
    expect(signatureProblem(KEY, "episodes", "r/e2", signed)).toMatch(/does not match/);
    expect(signatureProblem(KEY, "trainings", "r/e1", signed)).toMatch(/does not match/);
    expect(signatureProblem("x".repeat(32), "episodes", "r/e1", signed)).toMatch(/does not match/);
    expect(signatureProblem(KEY, "episodes", "r/e1", data)).toMatch(/not signed, and this worker takes signed jobs only/);
    expect(signatureProblem(KEY, "episodes", "r/e1", { ...data, signature: 42 })).toMatch(/not signed/);
  });

  it("without a key on either side a job goes unsigned; a signed job meets a worker without a key with a refusal", () => {
    expect(signJob(undefined, "episodes", "r/e1", data)).toEqual(data);
    expect(signatureProblem(undefined, "episodes", "r/e1", data)).toBeNull();
    expect(signatureProblem(undefined, "episodes", "r/e1", signJob(KEY, "episodes", "r/e1", data))).toMatch(/signed but this worker has no job key/);
  });
});
